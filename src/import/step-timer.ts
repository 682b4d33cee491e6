/*
 * How the importer times its steps (`import --verbose`): each step runs through a StepTimer, which
 * reports its duration to the caller's progress callback. A module of its own so that the steps
 * (write-sections.ts) need not import the import that calls them.
 */

/** Told each step's name and duration in milliseconds. */
export type ProgressReport = (step: string, ms: number) => void;

export type StepTimer = <T>(name: string, work: () => T) => T;

/** Runs a step and reports its duration (sync or async) to the caller's progress callback. */
export function stepTimer(report: ProgressReport | undefined): StepTimer {
  return (name, work) => {
    if (!report) return work();
    const started = performance.now();
    const result = work();
    if (result instanceof Promise) return result.then((value: unknown) => (report(name, performance.now() - started), value)) as typeof result;
    report(name, performance.now() - started);
    return result;
  };
}
