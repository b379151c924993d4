import { readdirSync, readFileSync } from 'node:fs';

/** The nice value of each thread of a process (this one by default), from /proc: field 19 of each task's stat. */
export function threadNiceValues(pid: number | 'self' = 'self'): number[] {
  return readdirSync(`/proc/${pid}/task`).map((tid) => Number(readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8').split(') ')[1].split(' ')[16]));
}

/** The nice value of a process's main thread. */
export function mainThreadNice(pid: number): number {
  return Number(readFileSync(`/proc/${pid}/task/${pid}/stat`, 'utf8').split(') ')[1].split(' ')[16]);
}
