/**
 * clock: time as a port. Every loop of the controller (queue delays, reconcile durations, leases,
 * shards, deadlines) reads and waits through one `Clock`, so tests drive them in fake time and a
 * test never has to wait for, or assert on, the wall clock. Knows nothing else.
 */
export { sleepWith, systemClock, type Clock, type Timer } from "./clock.js";
export { osThreadId, REREAD_MS, threadCpuMs, workClock, type WorkClockSources } from "./work-clock.js";
