/** Helm golden cases for Sprig's urlParse and urlJoin (Go's net/url). */
import { helmCase, type HelmCase } from "./helm-golden-support.js";

const URLS = [
  "http://a/b?c=1", "https://user:p%40ss@example.com:8443/a%20b/c?x=1&y=%2F#frag%20ment", "mailto:someone@example.com", "/relative/path?q", "path/only",
  "postgres://u@[::1]:5432/db?sslmode=disable", "http://[fe80::1%25en0]:80/", "file:///etc/hosts", "HTTP://Example.COM/", "//host.example/x",
  "http://a/b?", "http://a/%7Euser/a+b", "http://a/?q=a b", "", "*", "http://héllo.example/ü?ä#ö", "s3://bucket/key with space",
  "http://a:b/", "http://a:/", ":nope", "http://a/%zz", "1http://x", "a:b/c", "./a:b", "http://[::1/", "http://a b.com/",
];

const parse = URLS.map((u) => `{{ urlParse ${JSON.stringify(u)} | toJson }}`);
const roundTrip = URLS.slice(0, 17).map((u) => `{{ urlParse ${JSON.stringify(u)} | urlJoin }}`);
const join = [
  "{{ urlJoin (dict \"scheme\" \"https\" \"host\" \"example.com:443\" \"path\" \"/a b/c?d\" \"query\" \"x=1\" \"fragment\" \"f g\" \"userinfo\" \"me:p@ss\") }}",
  "{{ urlJoin (dict \"path\" \"a:b/c\") }}", "{{ urlJoin (dict \"host\" \"h\" \"path\" \"rel\") }}", "{{ urlJoin (dict \"scheme\" \"mailto\" \"opaque\" \"x@y\") }}",
  "{{ urlJoin (dict) }}", "{{ urlJoin (dict \"scheme\" \"http\" \"host\" \"[::1]:80\" \"path\" \"/\") }}", "{{ urlJoin (dict \"host\" 1) }}", "{{ urlJoin (dict \"userinfo\" \"a b\") }}",
];

export const urlCases: HelmCase[] = [...parse, ...roundTrip, ...join].map((t) => helmCase(t));
