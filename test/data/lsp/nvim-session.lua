-- Neovim's own LSP client (0.7 or later: start_client and buf_attach_client) driving `kro lsp`,
-- for test/integration/lsp-nvim.test.ts. The session file (JSON, path in $KRO_NVIM_SESSION) names
-- the server command, the file to open and the steps; what Neovim made of each answer is written
-- as JSON to the session's `out` file. Positions go both ways through Neovim's conversion: the
-- cursor is set in bytes and sent as LSP positions, and diagnostics are read back in bytes, so a
-- server that counted columns in other units than the client would be caught here.
local session = vim.json.decode(table.concat(vim.fn.readfile(os.getenv("KRO_NVIM_SESSION")), "\n"))
-- Only a guard against a hang: every wait ends as soon as its condition holds.
local GUARD_MS = session.guard_ms or 60000
local result = { steps = {} }

local published = 0
local last_published
local publish = vim.lsp.handlers["textDocument/publishDiagnostics"]
vim.lsp.handlers["textDocument/publishDiagnostics"] = function(err, params, ctx, config)
  publish(err, params, ctx, config)
  published = published + 1
  last_published = params
end

local function wait_for(what, condition)
  assert(vim.wait(GUARD_MS, condition, 10), "timed out waiting for " .. what)
end

--- Puts the cursor on `row` (1-based) at byte `col` (0-based) and returns the LSP position params.
local function at(cursor)
  vim.api.nvim_win_set_cursor(0, { cursor[1], cursor[2] })
  return vim.lsp.util.make_position_params()
end

local function request(buf, client_id, method, params)
  local answers, err = vim.lsp.buf_request_sync(buf, method, params, GUARD_MS)
  assert(answers ~= nil, method .. ": " .. tostring(err))
  local answer = answers[client_id]
  assert(answer ~= nil and answer.err == nil, method .. ": " .. vim.inspect(answer))
  return answer.result
end

local function diagnostics(buf)
  local found = {}
  for _, d in ipairs(vim.diagnostic.get(buf)) do
    table.insert(found, {
      lnum = d.lnum,
      col = d.col,
      end_lnum = d.end_lnum,
      end_col = d.end_col,
      severity = d.severity,
      message = d.message,
    })
  end
  table.sort(found, function(a, b)
    return a.lnum < b.lnum or (a.lnum == b.lnum and a.col < b.col)
  end)
  return found
end

local steps = {}

function steps.diagnostics(step, buf)
  wait_for("diagnostics publish #" .. step.publish, function()
    return published >= step.publish
  end)
  return { diagnostics = diagnostics(buf), published = last_published }
end

function steps.completion(step, buf, client_id)
  local params = at(step.cursor)
  local answer = request(buf, client_id, "textDocument/completion", params)
  local items = {}
  for _, item in ipairs(answer.items or answer) do
    table.insert(items, { label = item.label, detail = item.detail, kind = item.kind })
  end
  return { position = params.position, items = items }
end

function steps.hover(step, buf, client_id)
  local params = at(step.cursor)
  return { position = params.position, hover = request(buf, client_id, "textDocument/hover", params) }
end

-- Go to definition as a person does it: the editor's command, then where the cursor landed.
function steps.definition(step, buf, client_id)
  local params = at(step.cursor)
  local answer = request(buf, client_id, "textDocument/definition", params)
  vim.lsp.buf.definition()
  wait_for("the jump to the definition", function()
    local cursor = vim.api.nvim_win_get_cursor(0)
    return cursor[1] ~= step.cursor[1] or cursor[2] ~= step.cursor[2]
  end)
  return { position = params.position, location = answer, cursor = vim.api.nvim_win_get_cursor(0) }
end

-- Replaces the first `find` of line `row` (1-based) with `replace`, as typing would.
function steps.edit(step, buf)
  local line = vim.api.nvim_buf_get_lines(buf, step.row - 1, step.row, true)[1]
  local from = assert(line:find(step.find, 1, true), "no " .. step.find .. " on line " .. step.row)
  vim.api.nvim_buf_set_text(buf, step.row - 1, from - 1, step.row - 1, from - 1 + #step.find, { step.replace })
  return { line = vim.api.nvim_buf_get_lines(buf, step.row - 1, step.row, true)[1] }
end

local ok, err = pcall(function()
  local client_id = assert(vim.lsp.start_client({
    name = "kro",
    cmd = session.cmd,
    root_dir = session.root,
    on_exit = function(code)
      result.exit_code = code
    end,
  }))
  vim.cmd("edit " .. vim.fn.fnameescape(session.file))
  local buf = vim.api.nvim_get_current_buf()
  vim.bo[buf].filetype = "yaml"
  assert(vim.lsp.buf_attach_client(buf, client_id), "buf_attach_client failed")
  for _, step in ipairs(session.steps) do
    local out = steps[step.kind](step, buf, client_id)
    out.kind = step.kind
    table.insert(result.steps, out)
  end
  vim.lsp.stop_client(client_id)
  wait_for("the server to exit", function()
    return result.exit_code ~= nil
  end)
end)

if not ok then
  result.error = tostring(err)
end
vim.fn.writefile({ vim.json.encode(result) }, session.out)
vim.cmd(ok and "qall!" or "cquit 1")
