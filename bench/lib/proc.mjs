// The controller process as the OS sees it: RSS and peak RSS from /proc/<pid>/status, CPU time
// (user + system) from /proc/<pid>/stat. Linux only; values are for that one process.
import { readFileSync } from "node:fs";

const CLOCK_TICKS = 100; // USER_HZ on Linux

export function readProc(pid) {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const kb = (field) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(status)?.[1] ?? NaN);
  // Fields after the parenthesised command name; utime and stime are fields 14 and 15.
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  const cpuSeconds = (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
  return { rssMb: kb("VmRSS") / 1024, hwmMb: kb("VmHWM") / 1024, cpuSeconds };
}

/** Samples RSS every intervalMs; `peakRssMb` is the largest sample since start(). */
export class ProcSampler {
  constructor(pid, intervalMs = 250) {
    this.pid = pid;
    this.intervalMs = intervalMs;
    this.peakRssMb = 0;
    this.samples = [];
  }

  start() {
    this.startedAt = Date.now();
    this.sample();
    this.timer = setInterval(() => {
      this.sample();
    }, this.intervalMs);
    this.timer.unref();
    return this;
  }

  sample() {
    try {
      const { rssMb } = readProc(this.pid);
      this.peakRssMb = Math.max(this.peakRssMb, rssMb);
      if (this.samples.length < 20_000) this.samples.push([Date.now() - this.startedAt, Math.round(rssMb * 10) / 10]);
    } catch {
      // the process exited; the last samples stand
    }
  }

  stop() {
    clearInterval(this.timer);
    this.sample();
    return { peakRssMb: this.peakRssMb, samples: this.samples };
  }
}
