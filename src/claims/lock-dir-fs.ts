import fs from 'node:fs';
import { createLockStaleness } from './lock-staleness.js';

type Callback = (err: NodeJS.ErrnoException | null) => void;

/** The fs calls proper-lockfile makes, for it to run through `createLockDirFs`. */
export interface LockDirFs {
  mkdir(path: string, callback: Callback): void;
  rmdir(path: string, callback: Callback): void;
  rmdirSync(path: string): void;
  stat: typeof fs.stat;
  utimes: typeof fs.utimes;
  realpath: typeof fs.realpath;
}

export interface LockDirFsControl {
  fs: LockDirFs;
  /** Runs proper-lockfile's `release()`: the removal it makes is our own lock's, not a takeover. */
  releasing<T>(release: () => T, options: { keepDirectory: boolean }): T;
}

function locked(path: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`${path} is held`), { code: 'ELOCKED' });
}

/**
 * The filesystem proper-lockfile works through, with one change to its takeover of a stale lock.
 * On its own, two processes that both saw the lock stale each remove a lock directory and make
 * their own: the slower one removes the faster one's fresh lock, and both believe they hold it.
 * Here a takeover first takes `<lock>.takeover` (mkdir, one winner), checks again that the lock is
 * stale, and only then removes it; the loser is told the lock is held and tries again later.
 */
export function createLockDirFs(options: {
  staleMs: number;
  onMissingParent: () => Promise<void>;
  /** The clock locks are dated by: proper-lockfile's own, `Date.now`, unless a test says otherwise. */
  now?: () => number;
}): LockDirFsControl {
  let mode: 'takeover' | 'release' | 'keep' = 'takeover';
  const now = options.now ?? Date.now;
  const staleness = createLockStaleness({ staleMs: options.staleMs, now });
  const isStale = (path: string, stat: fs.Stats) => staleness.isStale(path, stat);

  function takeOver(path: string, callback: Callback): void {
    const guard = `${path}.takeover`;
    fs.mkdir(guard, (guardErr) => {
      if (guardErr?.code === 'EEXIST') {
        // A taker that died mid-takeover leaves its guard: it goes stale like a lock does.
        return fs.stat(guard, (statErr, stat) => {
          if (!statErr && isStale(guard, stat)) fs.rmdir(guard, () => callback(locked(path)));
          else callback(locked(path));
        });
      }
      if (guardErr) return callback(guardErr);
      const done = (err: NodeJS.ErrnoException | null) => fs.rmdir(guard, () => callback(err));
      fs.stat(path, (statErr, stat) => {
        if (statErr) return done(statErr);
        if (!isStale(path, stat)) return done(locked(path));
        fs.rmdir(path, done);
      });
    });
  }

  /**
   * proper-lockfile takes over only a lock dated more than the stale bound in the past; any other
   * stale lock (lock-staleness.ts: dated in the future) is found here, when making the lock meets it,
   * taken over through the same guard, and the lock made again. Otherwise proper-lockfile sees the
   * EEXIST as before.
   */
  function reclaimIfStale(path: string, exists: NodeJS.ErrnoException, callback: Callback): void {
    fs.stat(path, (statErr, stat) => {
      const leftToLockfile = statErr || stat.mtimeMs < now() - options.staleMs;
      if (leftToLockfile || !isStale(path, stat)) return callback(exists);
      takeOver(path, (err) => {
        if (err) return callback(err.code === 'ELOCKED' ? exists : err);
        fs.mkdir(path, callback);
      });
    });
  }

  const lockFs: LockDirFs = {
    stat: fs.stat,
    utimes: fs.utimes,
    realpath: fs.realpath,
    mkdir(path, callback) {
      fs.mkdir(path, (err) => {
        if (err?.code === 'EEXIST') return reclaimIfStale(path, err, callback);
        if (err?.code !== 'ENOENT') return callback(err);
        // The state directory went missing: recreate it at once rather than retry until the deadline.
        options.onMissingParent().then(
          () => fs.mkdir(path, callback),
          (cause: NodeJS.ErrnoException) => callback(cause),
        );
      });
    },
    rmdir(path, callback) {
      if (mode === 'keep') return callback(null);
      if (mode === 'release') return fs.rmdir(path, callback);
      takeOver(path, callback);
    },
    // proper-lockfile's exit handler, for locks still held when the process exits.
    rmdirSync: (path) => fs.rmdirSync(path),
  };

  return {
    fs: lockFs,
    releasing(release, { keepDirectory }) {
      // proper-lockfile's release() reaches rmdir synchronously (realpath is off), so the mode
      // applies to exactly that call.
      mode = keepDirectory ? 'keep' : 'release';
      try {
        return release();
      } finally {
        mode = 'takeover';
      }
    },
  };
}
