// bcrypt/htpasswd output is random per salt, so the golden file checks shapes; here: Helm's hash
// and ours verify the same way, and a seeded render is stable.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import bcryptjs from "bcryptjs";
import { seededEntropy } from "./entropy.js";
import { parseTemplate, renderTemplate } from "../index.js";

// `{{ bcrypt "pw" }}` as Helm 3.18.6 rendered it once.
const HELM_HASH = "$2a$10$vQvLw4AOl5UJB8mx3NUIguP7utuYX0JyM4RJmYf6cl2W2AkgH5BKe";
const seeded = (t: string, seed: string): string =>
  renderTemplate(parseTemplate("t", t), {}, { entropy: seededEntropy([seed], 0n) });

describe("bcrypt, htpasswd, encryptAES", () => {
  it("Helm's hash and ours are the same kind of hash", () => {
    assert.ok(bcryptjs.compareSync("pw", HELM_HASH));
    const ours = renderTemplate(parseTemplate("t", '{{ bcrypt "pw" }}'), {});
    assert.match(ours, /^\$2a\$10\$[./A-Za-z0-9]{53}$/);
    assert.ok(bcryptjs.compareSync("pw", ours));
    assert.ok(!bcryptjs.compareSync("px", ours));
  });

  it("htpasswd is user:bcrypt", () => {
    const [user, hash] = renderTemplate(parseTemplate("t", '{{ htpasswd "admin" "s3cret" }}'), {}).split(":");
    assert.equal(user, "admin");
    assert.ok(bcryptjs.compareSync("s3cret", hash ?? ""));
  });

  it("a seeded render gives the same salt and IV every time, another seed others", () => {
    const t = '{{ bcrypt "pw" }} {{ encryptAES "k" "text" }}';
    assert.equal(seeded(t, "a"), seeded(t, "a"));
    assert.notEqual(seeded(t, "a").split(" ")[0], seeded(t, "b").split(" ")[0]);
    assert.notEqual(seeded(t, "a").split(" ")[1], seeded(t, "b").split(" ")[1]);
    assert.equal(
      renderTemplate(parseTemplate("t", `{{ decryptAES "k" "${seeded(t, "a").split(" ")[1] ?? ""}" }}`), {}),
      "text",
    );
  });
});
