/**
 * Which shard an instance belongs to, and which replica should hold which shard. Both are pure
 * functions of their inputs, so every replica that sees the same members computes the same
 * assignment without talking to the others. Safety never depends on them (only a held Lease
 * lets a replica write for a shard); they only decide what each replica *tries* to hold.
 *
 * - An instance key is hashed onto a fixed number of shards: the count never changes while
 *   replicas come and go, so instances never move between shards — only shards between replicas.
 * - Shards are spread by rendezvous (highest random weight) hashing with capacities: each member
 *   gets ⌊S/M⌋ or ⌈S/M⌉ shards (a fair share, which is what makes throughput grow with replicas),
 *   each shard goes to the best-ranked member that still has room.
 */

/** 32-bit FNV-1a over UTF-16 code units, then murmur3's finaliser so close inputs spread. */
export function hash32(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** The shard of a work-queue key (any stable string naming one instance). */
export function shardOf(key: string, shardCount: number): number {
  return hash32(key) % shardCount;
}

/**
 * shard → member. Members are identities (deduplicated, order irrelevant); with none, nothing
 * is assigned. Deterministic: the same members always give the same answer.
 */
export function assignShards(shardCount: number, members: readonly string[]): Map<number, string> {
  const unique = [...new Set(members)].sort();
  const assignment = new Map<number, string>();
  if (unique.length === 0) return assignment;
  const base = Math.floor(shardCount / unique.length);
  const extra = shardCount % unique.length;
  // Who gets the extra shards is itself hashed, so it does not always favour the same name.
  const byLuck = [...unique].sort((a, b) => hash32(`extra/${a}`) - hash32(`extra/${b}`) || (a < b ? -1 : 1));
  const room = new Map(byLuck.map((m, i) => [m, base + (i < extra ? 1 : 0)]));
  for (let shard = 0; shard < shardCount; shard++) {
    const ranked = [...unique].sort((a, b) => hash32(`${shard}/${b}`) - hash32(`${shard}/${a}`) || (a < b ? -1 : 1));
    const member = ranked.find((m) => (room.get(m) ?? 0) > 0);
    if (member === undefined) continue; // cannot happen: the rooms add up to shardCount
    room.set(member, (room.get(member) ?? 0) - 1);
    assignment.set(shard, member);
  }
  return assignment;
}

/** The shards assigned to `member`. */
export function shardsFor(assignment: ReadonlyMap<number, string>, member: string): Set<number> {
  const mine = new Set<number>();
  for (const [shard, holder] of assignment) if (holder === member) mine.add(shard);
  return mine;
}
