#!/usr/bin/env node
'use strict';
/*
 * Runs before `npm run up`, `npm run cli` and `npm test`: installs dependencies and builds dist/ only when they are
 * out of date, printing each phase it runs with its duration. Plain JavaScript with no dependencies, because it runs
 * before anything is installed or compiled.
 *
 * Freshness is decided against stamp files written after a successful step, so a `git pull` or an edit triggers
 * exactly the work they need:
 *   install: the contents of package.json / package-lock.json differ from those node_modules/.hogbase-install-stamp
 *            was written for (contents, not times: npm install rewrites an unchanged lock file, which would make
 *            every later run install again)
 *   build:   any file under src/ or a build config newer than dist/.hogbase-build-stamp; the server is built by
 *            `nest build`, then the web console (src/console) by `vite build` into dist/console, which `nest build`
 *            leaves in place
 *
 * Flag: --quiet prints nothing when everything is up to date (the CLI's case).
 */
const { spawn } = require('node:child_process');
const { createHash } = require('node:crypto');
const fs = require('node:fs');
const path = require('node:path');

const root = path.resolve(__dirname, '..', '..');
const quiet = process.argv.includes('--quiet');
const installStamp = path.join(root, 'node_modules', '.hogbase-install-stamp');
const buildStamp = path.join(root, 'dist', '.hogbase-build-stamp');
const buildInputs = ['src', 'tsconfig.json', 'tsconfig.build.json', 'nest-cli.json', 'package-lock.json'];

/** The newest modification time of a file or of anything under a folder. */
function newest(entry) {
  const stat = fs.statSync(entry, { throwIfNoEntry: false });
  if (!stat) return 0;
  if (!stat.isDirectory()) return stat.mtimeMs;
  let latest = stat.mtimeMs; // a deleted file changes its folder's time
  for (const child of fs.readdirSync(entry)) latest = Math.max(latest, newest(path.join(entry, child)));
  return latest;
}

/**
 * Runs one step with its output shown, then prints its duration; a step that may take long (`heartbeatMs`) also says
 * every so often that it is still running, since npm prints nothing while it downloads.
 */
function phase(label, command, args, heartbeatMs = 0) {
  const started = Date.now();
  process.stdout.write(`[up] ${label}...\n`);
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd: root, stdio: 'inherit', shell: process.platform === 'win32' });
    const heartbeat = heartbeatMs > 0 ? setInterval(() => process.stdout.write(`[up]   still ${label.split(' (')[0]}: ${Math.round((Date.now() - started) / 1000)} s\n`), heartbeatMs) : null;
    child.on('exit', (code, signal) => {
      if (heartbeat) clearInterval(heartbeat);
      if (code !== 0) {
        process.stderr.write(`[up] ${label} failed (exit ${code ?? signal}); see the output above.\n`);
        process.exit(code || 1);
      }
      process.stdout.write(`[up] ${label}: done in ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
      resolve();
    });
  });
}

/** A package's command-line script, found through its package.json: vite's `exports` hide `vite/bin/vite.js`. */
function binOf(name) {
  const manifest = require.resolve(`${name}/package.json`, { paths: [root] });
  const { bin } = JSON.parse(fs.readFileSync(manifest, 'utf8'));
  return path.join(path.dirname(manifest), typeof bin === 'string' ? bin : bin[name]);
}

/** Stamps with the time the step started, so a source saved while it ran is newer than the stamp and is built next time. */
function stamp(file, startedMs) {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, `${new Date(startedMs).toISOString()}\n`);
  fs.utimesSync(file, startedMs / 1000, startedMs / 1000);
}

/** A digest of what the installed dependencies were installed from. */
function manifestsDigest() {
  const hash = createHash('sha256');
  for (const file of ['package.json', 'package-lock.json']) hash.update(fs.readFileSync(path.join(root, file))).update('\0');
  return hash.digest('hex');
}

async function main() {
  const installedFor = fs.existsSync(installStamp) ? fs.readFileSync(installStamp, 'utf8').trim() : '';
  if (installedFor !== manifestsDigest()) {
    const fresh = !fs.existsSync(path.join(root, 'node_modules', '.package-lock.json'));
    const label = fresh ? 'installing dependencies (npm install: about a minute and 1.1 GB on a fresh clone, most of it the embedded ClickHouse)' : 'installing dependencies (npm install)';
    await phase(label, 'npm', ['install', '--no-audit', '--no-fund', '--loglevel=error'], 15_000);
    // The digest after the install: npm may have rewritten the lock file.
    fs.writeFileSync(installStamp, `${manifestsDigest()}\n`);
  }

  const builtAt = newest(buildStamp);
  const sourcesAt = Math.max(...buildInputs.map((entry) => newest(path.join(root, entry))));
  const stale = builtAt < sourcesAt;
  const serverMissing = !fs.existsSync(path.join(root, 'dist', 'main.js'));
  // vite empties dist/console first, so a console build that failed leaves no index.html behind.
  const consoleMissing = !fs.existsSync(path.join(root, 'dist', 'console', 'index.html'));
  if (stale || serverMissing || consoleMissing) {
    const started = Date.now();
    if (stale || serverMissing) {
      await phase('building dist/ (nest build)', process.execPath, [require.resolve('@nestjs/cli/bin/nest.js', { paths: [root] }), 'build']);
    }
    await phase('building the console (vite build)', process.execPath, [binOf('vite'), 'build', '--config', 'src/console/vite.config.mts']);
    stamp(buildStamp, started);
  } else if (!quiet) {
    process.stdout.write('[up] dependencies and build are up to date\n');
  }
}

main();
