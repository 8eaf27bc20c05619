/**
 * A leader in a process of its own, for tests that pause it (SIGSTOP) and resume it (SIGCONT):
 * it wins a Lease, then keeps many writes in flight through its fenced client — several writers
 * sharing one socket, so some always wait for it — and reports on stdout, one JSON line each:
 * {"event":"acquired"}, then {"event":"lost", landed, refused, failed, lastPassed} once it has lost
 * the Lease and seen its writers refused for a while (lastPassed: the object, seq and wall-clock
 * time of the last write the fence let through). Then it exits.
 *
 * argv: kubeconfig namespace leaseName identity objectPrefix writers leaseMs renewMs retryMs
 */
import { createKubeClient, isFenced, WriteFence } from "../../src/index.js";
import { startLeaderElection } from "../../src/controller/index.js";
import { createLogger } from "../../src/observability/index.js";

const [
  kubeconfig = "",
  namespace = "",
  leaseName = "",
  identity = "",
  prefix = "",
  writersArg = "4",
  leaseMs = "2000",
  renewMs = "1500",
  retryMs = "200",
] = process.argv.slice(2);
const say = (line: object): void => {
  process.stdout.write(`${JSON.stringify(line)}\n`);
};

/** The seq each object's writer is sending now. */
const writing = new Map<string, string>();
interface Pass {
  readonly name: string;
  readonly seq: string;
  readonly wallMs: number;
}
/**
 * The fence, noting the last write that passed it (wall clock): a pause can fall between the last
 * check and the bytes reaching the kernel, and the test must know which write that was.
 */
class NotingFence extends WriteFence {
  last: Pass | undefined;
  override check(verb: string, path: string): void {
    super.check(verb, path);
    const name = path.split("?")[0]?.split("/").pop() ?? path;
    this.last = { name, seq: writing.get(name) ?? "", wallMs: Date.now() };
  }
}
const fence = new NotingFence();
const electionClient = await createKubeClient({ kubeconfig, qps: 0, maxRetries: 0, requestTimeoutMs: Number(renewMs) });
const work = await createKubeClient({ kubeconfig, qps: 0, fence, maxRequestSockets: 1 });
const election = startLeaderElection({
  client: electionClient,
  logger: createLogger({ level: "silent", name: "busy-leader", format: "text" }),
  namespace,
  name: leaseName,
  identity,
  fence,
  leaseDurationMs: Number(leaseMs),
  renewDeadlineMs: Number(renewMs),
  retryPeriodMs: Number(retryMs),
});
await election.acquired;
say({ event: "acquired" });

const counts = { landed: 0, refused: 0, failed: [] as string[] };
let running = true;
const writers = Array.from({ length: Number(writersArg) }, async (_, i) => {
  for (let seq = 0; running; seq++) {
    try {
      writing.set(`${prefix}-${i}`, String(seq));
      await work.apply(
        {
          apiVersion: "v1",
          kind: "ConfigMap",
          metadata: { name: `${prefix}-${i}`, namespace, labels: { "kro-ts.test/busy-leader": prefix } },
          data: { writer: identity, seq: String(seq) },
        },
        { fieldManager: identity, force: true },
      );
      counts.landed++;
    } catch (error) {
      if (isFenced(error)) counts.refused++;
      else counts.failed.push(error instanceof Error ? error.message : String(error));
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }
});
await election.lost;
// Keep trying for a moment: every one of these must be refused.
await new Promise((resolve) => setTimeout(resolve, 500));
running = false;
await Promise.all(writers);
say({ event: "lost", ...counts, lastPassed: fence.last });
await election.stop();
work.close();
electionClient.close();
