/**
 * A deterministic world for the shard coordinator: virtual time, an in-memory Lease API with the
 * API server's optimistic concurrency, replicas whose clocks run at different rates, requests
 * that are slow, fail, hang until their deadline or are applied while their answer is lost, and
 * workers that reconcile random instances through the admitted tenure's fence. Every write's
 * arrival at the "server" is recorded per tenure, so a test can assert that no two tenures of
 * one shard ever wrote during overlapping intervals.
 */
import { ApiError, type KubeObject, type RequestControl, type WriteFence } from "../../../src/kube/index.js";
import { createLogger } from "../../../src/observability/index.js";
import { sleepWith } from "../../../src/controller/clock/index.js";
import {
  startShardCoordinator,
  type LeaseApi,
  type ShardCoordinator,
} from "../../../src/controller/coordination/shard-coordinator.js";
import type { LeaseTiming } from "../../../src/controller/coordination/lease-record.js";

/** Mulberry32: a small seeded generator, so a failing seed can be replayed. */
export function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

class Scheduler {
  time = 0;
  private seq = 0;
  /** A binary min-heap on (at, seq): the next event in O(log n), not a sort per event. */
  private readonly heap: { at: number; seq: number; run: () => void; sync: boolean }[] = [];

  /**
   * `sync`: the event only touches the simulation's own state — resolves no promise and calls
   * nothing that may start one — so no promise chain can be waiting to run after it.
   */
  at(delay: number, run: () => void, sync = false): void {
    const heap = this.heap;
    const event = { at: this.time + Math.max(0, delay), seq: this.seq++, run, sync };
    let i = heap.push(event) - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      const p = heap[parent];
      if (p === undefined || !before(event, p)) break;
      heap[i] = p;
      i = parent;
    }
    heap[i] = event;
  }

  /** Runs events in time order until `until`, letting promise chains settle after each. */
  async runUntil(until: number, afterEach: () => void): Promise<void> {
    for (;;) {
      const next = this.heap[0];
      if (next === undefined || next.at > until) break;
      this.pop();
      this.time = next.at;
      next.run();
      if (!next.sync) await new Promise((resolve) => setImmediate(resolve));
      afterEach();
    }
    this.time = until;
  }

  private pop(): void {
    const heap = this.heap;
    const last = heap.pop();
    if (last === undefined || heap.length === 0) return;
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= heap.length) break;
      const left = heap[l];
      const right = heap[l + 1];
      const child = right !== undefined && left !== undefined && before(right, left) ? l + 1 : l;
      const c = heap[child];
      if (c === undefined || !before(c, last)) break;
      heap[i] = c;
      i = child;
    }
    heap[i] = last;
  }
}

const before = (a: { at: number; seq: number }, b: { at: number; seq: number }): boolean =>
  a.at < b.at || (a.at === b.at && a.seq < b.seq);

interface Tenure {
  readonly replica: string;
  readonly shard: number;
  first: number;
  last: number;
}

export interface Replica {
  readonly id: string;
  readonly coordinator: ShardCoordinator;
  /** Local clock = rate × real time + offset. */
  readonly rate: number;
  crashed: boolean;
  /** Requests hang until their deadline; some reach the server with their answer lost. */
  partitioned: boolean;
}

export interface WorldOptions {
  readonly seed: number;
  readonly shards: number;
  readonly timing: LeaseTiming;
  /** Fraction of requests that fail with a 500 (default 0.05). */
  readonly failureRate?: number;
  /** Clock rates are drawn from [1 − skew, 1 + skew] (default 0.05). */
  readonly clockSkew?: number;
}

const logger = createLogger({ level: "silent", name: "shard-simulation", format: "text" });

export class World {
  readonly scheduler = new Scheduler();
  readonly replicas: Replica[] = [];
  readonly random: () => number;
  readonly tenures = new Map<WriteFence, Tenure>();
  writes = 0;
  refused = 0;
  /** Each Lease with its JSON: what a request answers is parsed from it, a fresh copy every time. */
  private readonly store = new Map<string, { readonly object: KubeObject; readonly json: string }>();
  private version = 0;

  constructor(readonly options: WorldOptions) {
    this.random = seeded(options.seed);
  }

  /** Starts a replica with two reconcile workers. */
  add(id: string): Replica {
    const skew = this.options.clockSkew ?? 0.05;
    const rate = 1 - skew + 2 * skew * this.random();
    const offset = this.random() * 1e6;
    const replica = { id, rate, crashed: false, partitioned: false } as Replica & { coordinator: ShardCoordinator };
    const now = () => offset + this.scheduler.time * rate;
    const coordinator = startShardCoordinator({
      api: this.api(replica),
      logger,
      namespace: "ns",
      group: "g",
      identity: id,
      shardCount: this.options.shards,
      timing: this.options.timing,
      random: this.random,
      clock: {
        now,
        wallNow: () => Date.UTC(2026, 0, 1) + now(),
        setTimer: (fn, ms) => {
          let cancelled = false;
          // A dead process never wakes.
          this.scheduler.at(ms / rate, () => {
            if (!cancelled && !replica.crashed) fn();
          });
          return {
            cancel: () => {
              cancelled = true;
            },
          };
        },
        sleep(ms, signal) {
          return sleepWith(this, ms, signal);
        },
      },
    });
    replica.coordinator = coordinator;
    this.replicas.push(replica);
    coordinator.start();
    for (let w = 0; w < 2; w++) void this.worker(replica);
    return replica;
  }

  /** Reconciles random instances: admitted ones write 1–4 times, 10–400 ms apart. */
  private async worker(replica: Replica): Promise<void> {
    const pause = (ms: number) =>
      new Promise<void>((resolve) => {
        this.scheduler.at(ms / replica.rate, resolve);
      });
    for (;;) {
      await pause(20 + this.random() * 60);
      if (replica.crashed) return;
      const ticket = replica.coordinator.admit(`instance-${Math.floor(this.random() * 500)}`);
      if (ticket === undefined) continue;
      const writes = 1 + Math.floor(this.random() * 4);
      for (let i = 0; i < writes; i++) {
        // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- set by the test while this loop awaits
        if (replica.crashed) return;
        // As the transport does: the fence is checked right before the request is sent.
        if (!ticket.fence.open) {
          this.refused++;
          break;
        }
        const fence = ticket.fence;
        this.scheduler.at(
          1 + this.random() * 20,
          () => {
            this.landed(replica.id, ticket.shard, fence);
          },
          true,
        );
        // Now and then a slow reconcile, so handovers have to wait for a drain.
        await pause(this.random() < 0.02 ? 3000 : 10 + this.random() * 390);
      }
      ticket.leave();
    }
  }

  private landed(replica: string, shard: number, fence: WriteFence): void {
    this.writes++;
    const tenure = this.tenures.get(fence) ?? { replica, shard, first: this.scheduler.time, last: this.scheduler.time };
    tenure.last = this.scheduler.time;
    this.tenures.set(fence, tenure);
  }

  /** Pairs of tenures of one shard whose write intervals overlap (must be none). */
  overlaps(): string[] {
    const byShard = new Map<number, Tenure[]>();
    for (const t of this.tenures.values()) byShard.set(t.shard, [...(byShard.get(t.shard) ?? []), t]);
    const found: string[] = [];
    for (const [shard, list] of byShard) {
      list.sort((a, b) => a.first - b.first);
      for (let i = 1; i < list.length; i++) {
        const [prev, next] = [list[i - 1], list[i]];
        if (prev !== undefined && next !== undefined && next.first <= prev.last)
          found.push(
            `shard ${shard}: ${prev.replica} wrote until ${prev.last.toFixed(0)} ms, ${next.replica} from ${next.first.toFixed(0)} ms`,
          );
      }
    }
    return found;
  }

  /** Open fences per shard among live replicas right now (must never exceed 1). */
  doubleHolders(): string[] {
    const found: string[] = [];
    // Runs after every event: counts first, names the holders only when there are two.
    for (let shard = 0; shard < this.options.shards; shard++) {
      let open = 0;
      for (const r of this.replicas) if (!r.crashed && r.coordinator.tenureFence(shard)?.open === true) open++;
      if (open < 2) continue;
      const holders = this.replicas.filter((r) => !r.crashed && r.coordinator.tenureFence(shard)?.open === true);
      found.push(`t=${this.scheduler.time.toFixed(0)} shard ${shard}: ${holders.map((r) => r.id).join(", ")}`);
    }
    return found;
  }

  /** shard → live replica holding it, from the replicas' own view. */
  holders(): Map<number, string[]> {
    const map = new Map<number, string[]>();
    for (const r of this.replicas.filter((x) => !x.crashed))
      for (const s of r.coordinator.held()) map.set(s, [...(map.get(s) ?? []), r.id]);
    return map;
  }

  run(ms: number, check: () => void): Promise<void> {
    return this.scheduler.runUntil(this.scheduler.time + ms, check);
  }

  private api(replica: Replica): LeaseApi {
    const request = <T>(verb: string, apply: () => T, control: RequestControl): Promise<T> =>
      new Promise<T>((resolve, reject) => {
        if (replica.crashed) return;
        const timeout = (control.timeoutMs ?? this.options.timing.renewDeadlineMs) / replica.rate;
        if (replica.partitioned) {
          // A black hole: sometimes the request got through and only the answer is lost.
          if (this.random() < 0.3)
            this.scheduler.at(
              this.random() * 30,
              () => {
                try {
                  apply();
                } catch {
                  /* lost either way */
                }
              },
              true,
            );
          this.scheduler.at(timeout, () => {
            reject(new Error(`${verb}: no answer within ${timeout} ms`));
          });
          return;
        }
        if (this.random() < (this.options.failureRate ?? 0.05)) {
          this.scheduler.at(this.random() * 50, () => {
            reject(new ApiError({ status: 500, verb, path: "/leases" }));
          });
          return;
        }
        const there = this.random() * 40;
        const back = this.random() * 40;
        this.scheduler.at(
          there,
          () => {
            let result: T;
            try {
              result = apply();
            } catch (error) {
              this.scheduler.at(back, () => {
                reject(error instanceof Error ? error : new Error(String(error)));
              });
              return;
            }
            this.scheduler.at(back, () => {
              if (!replica.crashed) resolve(result);
            });
          },
          true,
        );
      });
    const copy = (o: KubeObject): KubeObject => JSON.parse(JSON.stringify(o)) as KubeObject;
    const fresh = (json: string): KubeObject => JSON.parse(json) as KubeObject;
    const store = (name: string, stored: KubeObject): KubeObject => {
      const json = JSON.stringify(stored);
      this.store.set(name, { object: stored, json });
      return fresh(json);
    };
    return {
      list: (_namespace, selector) =>
        request(
          "LIST",
          () => {
            const [key, value] = selector.split("=");
            return [...this.store.values()]
              .filter((o) => key !== undefined && o.object.metadata?.labels?.[key] === value)
              .map((o) => fresh(o.json));
          },
          {},
        ),
      create: (lease, control) =>
        request(
          "POST",
          () => {
            const name = lease.metadata?.name ?? "";
            if (this.store.has(name))
              throw new ApiError({
                status: 409,
                verb: "POST",
                path: name,
                body: JSON.stringify({ kind: "Status", reason: "AlreadyExists" }),
              });
            return store(name, {
              ...copy(lease),
              metadata: { ...lease.metadata, resourceVersion: String(++this.version) },
            });
          },
          control,
        ),
      replace: (lease, control) =>
        request(
          "PUT",
          () => {
            const name = lease.metadata?.name ?? "";
            const current = this.store.get(name)?.object;
            if (current === undefined) throw new ApiError({ status: 404, verb: "PUT", path: name });
            if (current.metadata?.resourceVersion !== lease.metadata?.resourceVersion)
              throw new ApiError({ status: 409, verb: "PUT", path: name });
            return store(name, {
              ...copy(lease),
              metadata: { ...lease.metadata, resourceVersion: String(++this.version) },
            });
          },
          control,
        ),
    };
  }
}
