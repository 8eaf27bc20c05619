// A stand-in for the `vscode` module, for test/tooling/vscode-extension.test.ts: enough of VS Code's
// API for the bundled extension to activate and its language client to start and stop a real
// `kro lsp`. Settings of section `kro` come from globalThis.kroSettings; what the extension shows
// (errors, output lines) goes to globalThis.vscodeShown; its listeners of configuration changes
// to globalThis.vscodeConfigurationListeners, for the test to call.
"use strict";
const disposable = { dispose() {} };
const event = () => disposable;
const shown = (globalThis.vscodeShown = []);
const configurationListeners = (globalThis.vscodeConfigurationListeners = []);

/** One namespace of the API: its own members, then `on…` events and `register…` calls as no-ops. */
function namespace(own) {
  return new Proxy(own, {
    get(target, name) {
      if (name in target) return target[name];
      if (typeof name !== "string") return undefined;
      if (name.startsWith("on")) return event;
      if (name.startsWith("register")) return () => disposable;
      return undefined;
    },
  });
}

const channel = {
  name: "kro",
  append() {},
  appendLine(line) {
    shown.push(`output: ${line}`);
  },
  // A LogOutputChannel, as the client asks for.
  logLevel: 0,
  onDidChangeLogLevel: event,
  trace() {},
  debug() {},
  info() {},
  warn(message) {
    shown.push(`output: ${message}`);
  },
  error(message) {
    shown.push(`output: ${message}`);
  },
  replace() {},
  clear() {},
  show() {},
  hide() {},
  dispose() {},
};
const uri = (text) => ({ toString: () => text, fsPath: text.replace(/^file:\/\//, ""), scheme: "file" });

const api = {
  version: "1.91.0",
  env: namespace({ appName: "fake", language: "en", machineId: "fake", sessionId: "fake", uiKind: 1 }),
  workspace: namespace({
    getConfiguration: (section) => ({
      get: (key, fallback) => (section === "kro" ? globalThis.kroSettings?.[key] : undefined) ?? fallback,
    }),
    onDidChangeConfiguration: (listener) => {
      configurationListeners.push(listener);
      return disposable;
    },
    workspaceFolders: undefined,
    textDocuments: [],
  }),
  window: namespace({
    createOutputChannel: () => channel,
    showErrorMessage: async (message) => {
      shown.push(`error: ${message}`);
    },
    showWarningMessage: async (message) => {
      shown.push(`warning: ${message}`);
    },
    showInformationMessage: async () => undefined,
    visibleTextEditors: [],
    activeTextEditor: undefined,
    tabGroups: { all: [], onDidChangeTabs: event, onDidChangeTabGroups: event },
  }),
  languages: namespace({
    createDiagnosticCollection: () => ({
      set() {},
      delete() {},
      clear() {},
      forEach() {},
      get() {},
      has: () => false,
      dispose() {},
    }),
    match: () => 0,
  }),
  commands: namespace({ registerCommand: () => disposable, executeCommand: async () => undefined }),
  extensions: namespace({ all: [], getExtension: () => undefined }),
  Disposable: class {
    static from() {
      return disposable;
    }
    constructor(dispose) {
      this.dispose = dispose;
    }
  },
  EventEmitter: class {
    event = event;
    fire() {}
    dispose() {}
  },
  Uri: { parse: uri, file: (path) => uri(`file://${path}`) },
  CodeActionKind: class CodeActionKind {
    static Empty = new CodeActionKind("");
    static QuickFix = new CodeActionKind("quickfix");
    constructor(value) {
      this.value = value;
    }
    append(part) {
      return new CodeActionKind(this.value === "" ? part : `${this.value}.${part}`);
    }
    contains(other) {
      return this.value === "" || other.value === this.value || other.value.startsWith(`${this.value}.`);
    }
    intersects(other) {
      return this.contains(other) || other.contains(this);
    }
  },
  CancellationTokenSource: class {
    token = { isCancellationRequested: false, onCancellationRequested: event };
    cancel() {}
    dispose() {}
  },
};

// Any other name is a class: the client only extends or instantiates those it uses at start.
module.exports = new Proxy(api, {
  get: (target, name) =>
    name in target ? target[name] : typeof name === "string" && name !== "then" ? (target[name] = class {}) : undefined,
});
