import { readFileSync } from 'node:fs';

/** CPU seconds (user + system) process `pid` has used so far, from /proc (Linux; 10 ms resolution). */
export function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/*
 * The order of the arms in round `round` of an A/B run: forward in even rounds, backward in odd ones
 * (A B, B A, ...), so that a drift of the machine's load over a round weighs on every arm alike.
 */
export function inRoundOrder<T>(arms: readonly T[], round: number): readonly T[] {
  return round % 2 === 0 ? arms : [...arms].reverse();
}
