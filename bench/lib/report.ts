// What the benchmark reports: the machine it ran on, small statistics, goal verdicts, and the
// Markdown table that BENCHMARKS.md quotes.
import fs from 'node:fs';
import os from 'node:os';

export interface Machine {
  cpus: number;
  cpuModel: string;
  memoryGiB: number;
  node: string;
  os: string;
  /** 1-minute load average when the run began: other work on the machine skews the figures. */
  loadAverage: number;
}

export function machine(): Machine {
  let cpuModel = os.cpus()[0]?.model ?? 'unknown';
  try {
    cpuModel = /^model name\s*:\s*(.+)$/m.exec(fs.readFileSync('/proc/cpuinfo', 'utf8'))?.[1] ?? cpuModel;
  } catch {
    // not Linux: os.cpus() it is
  }
  return {
    cpus: os.availableParallelism(),
    cpuModel,
    memoryGiB: Math.round(os.totalmem() / 2 ** 30),
    node: process.version,
    os: `${os.type()} ${os.release()}`,
    loadAverage: os.loadavg()[0]!,
  };
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** The p-quantile by the nearest-rank method (p99 of 200 values is the 198th smallest). */
export function quantile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))]!;
}

export interface Goal {
  name: string;
  target: string;
  measured: string;
  met: boolean;
}

export const verdict = (met: boolean): string => (met ? 'met' : 'NOT met');

export function table(header: string[], rows: (string | number)[][]): string {
  const line = (cells: (string | number)[]) => `| ${cells.join(' | ')} |`;
  return [line(header), line(header.map(() => '---')), ...rows.map(line)].join('\n');
}

export function goalsTable(goals: Goal[]): string {
  return table(
    ['goal', 'target', 'measured', 'verdict'],
    goals.map((g) => [g.name, g.target, g.measured, verdict(g.met)]),
  );
}

export const fmt = (n: number, digits = 0): string =>
  n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
