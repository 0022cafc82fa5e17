// Runs `chatbridge <args>` as a long-lived child process (from the JavaScript test/build-once.ts
// compiled) and waits for the line that says it started. A start that does not come within the
// bound fails with what a CI log needs to tell a starved machine from a hang: everything the
// child wrote, how long it ran, how much CPU it was given, and the machine's load. (Under a load
// average of 10 on 2 cores a start measured 5-14 s, nearly all of it loading modules; unloaded
// 1-3 s.)
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { availableParallelism, loadavg } from 'node:os';
import { built } from './run-cli.js';

export interface CliProcess {
  child: ChildProcess;
  /** Everything it wrote, stdout and stderr, as it arrived (its log goes to stderr). */
  output: string[];
  /** Resolves with its exit code once it is gone (null when a signal ended it). */
  exited: Promise<number | null>;
  /** Milliseconds from spawn to the started line. */
  startMs: number;
}

export interface StartCliOptions {
  cwd: string;
  /** The whole environment it gets (PATH and HOME are added). */
  env: Record<string, string>;
  /** Text in its output that means it has started. */
  startedWhen: string;
  /** How long the start may take; generous, because CI machines are busy. Default 60 s. */
  timeoutMs?: number;
}

/** CPU seconds a process has used (Linux /proc); undefined where that cannot be read. */
export function cpuSeconds(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name (which may hold spaces), from field 3: utime is 14, stime 15.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100; // USER_HZ is 100 on Linux
  } catch {
    return undefined;
  }
}

function diagnosis(what: string, child: ChildProcess, spawnedAt: number, output: string[]) {
  const cpu = cpuSeconds(child.pid);
  const facts = [
    `after ${((Date.now() - spawnedAt) / 1000).toFixed(1)} s`,
    cpu === undefined ? undefined : `having used ${cpu.toFixed(2)} s of CPU`,
    `load average ${loadavg()[0]!.toFixed(1)} on ${availableParallelism()} cores`,
  ].filter(Boolean);
  const text = output.join('');
  return `${what} ${facts.join(', ')}; its output:\n${text === '' ? '(none)' : text}`;
}

/** Spawns `chatbridge <args>` and resolves once `startedWhen` appears in its output. */
export async function startCli(args: string[], options: StartCliOptions): Promise<CliProcess> {
  const timeoutMs = options.timeoutMs ?? 60_000;
  const spawnedAt = Date.now();
  const child = spawn(process.execPath, [built('src/cli.ts'), ...args], {
    cwd: options.cwd,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output: string[] = [];
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  // Read from the first byte: whatever happens later, the failure message has all of it.
  child.stdout!.on('data', (chunk: Buffer) => output.push(chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => output.push(chunk.toString()));
  let timer: NodeJS.Timeout | undefined;
  try {
    await new Promise<void>((resolve, reject) => {
      const check = () => {
        if (!output.join('').includes(options.startedWhen)) return;
        child.stdout!.off('data', check);
        child.stderr!.off('data', check);
        resolve();
      };
      child.stdout!.on('data', check);
      child.stderr!.on('data', check);
      child.once('error', reject);
      // 'close', not 'exit': its output is read to the end by then.
      child.once('close', (code, signal) =>
        reject(
          new Error(
            diagnosis(
              `chatbridge ${args.join(' ')} exited (${code ?? signal})`,
              child,
              spawnedAt,
              output,
            ),
          ),
        ),
      );
      timer = setTimeout(() => {
        reject(
          new Error(
            diagnosis(
              `chatbridge ${args.join(' ')} did not say "${options.startedWhen}"`,
              child,
              spawnedAt,
              output,
            ),
          ),
        );
      }, timeoutMs);
    });
  } catch (error) {
    // A start that failed leaves nothing running behind it.
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGKILL');
      await exited;
    }
    throw error;
  } finally {
    clearTimeout(timer);
  }
  return { child, output, exited, startMs: Date.now() - spawnedAt };
}
