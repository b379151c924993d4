/**
 * The import rules the source tree keeps, checked by dependency-cruiser (test/unit/architecture.spec.ts): what is
 * shared (common, database, queues, kernel) never reaches into a feature module, features never import the root files that
 * assemble them, no file imports itself back through others, and no folder does. Every rule holds with no exceptions.
 */
module.exports = {
  forbidden: [
    {
      name: 'shared-never-imports-modules',
      comment: 'common, database, queues and the kernel are used by every module; a module they import would be in every process and every test.',
      severity: 'error',
      from: { path: '^src/(common|database|queues|kernel)/' },
      to: { path: '^src/modules/' },
    },
    {
      name: 'modules-never-import-root',
      comment: 'The root files (main, app.module, entities) and the role entry points (roles/) assemble the modules; a module importing them is a cycle by construction.',
      severity: 'error',
      from: { path: '^src/modules/' },
      to: { path: '^src/([^/]+\\.ts|roles/.+)$' },
    },
    {
      name: 'no-folder-cycles',
      comment: 'Folders that import each other (directly or round a ring) are one unit in disguise: neither can be read, tested or replaced alone.',
      severity: 'error',
      scope: 'folder',
      from: { path: '^src/' },
      to: { circular: true },
    },
    {
      name: 'no-cycles',
      comment: 'A file that reaches itself through its imports cannot be understood, tested or moved alone.',
      severity: 'error',
      from: { path: '^src/' },
      to: { circular: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    exclude: { path: '^src/console/' },
  },
};
