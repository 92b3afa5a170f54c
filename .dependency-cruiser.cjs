/**
 * Which way imports may point, checked by `pnpm lint` (dependency-cruiser). A rule's name and
 * comment are what a failing lint prints, so each says what the rule keeps and what to do.
 *
 * The shape: services talk to each other only over HTTP; packages are below services; inside a
 * service, routes → domain → store (routes import only the store's types), adapters (identity's delivery/, the delivery gateway's
 * providers) implement interfaces the domain declares, config.ts is the only reader of the
 * environment (eslint enforces that part), and app.ts / main.ts (and identity's cli.ts) assemble everything from above. No circles anywhere.
 */
const SERVICE_ENTRY = '(app|start|main|cli|cli-commands)\\.ts$';

/** Rules for one service: what its lower layers may never import. */
function serviceLayers(service, { adapters }) {
  const root = `^services/${service}/src/`;
  const adapterFolders = adapters.join('|');
  return [
    {
      name: `${service}: store stays below the domain`,
      comment: `store/ implements what the domain needs and imports nothing above it: pass limits in as parameters and declare the row types and small interfaces it uses (e.g. a cipher) in store/ itself.`,
      severity: 'error',
      from: { path: `${root}store/` },
      to: { path: `${root}(domain|routes|${adapterFolders}|config\\.ts|${SERVICE_ENTRY})` },
    },
    {
      name: `${service}: the domain declares its ports`,
      comment: `domain/ may not import routes, adapters (${adapters.join(', ')}), config.ts or the app: declare the interface it needs in domain/ (a port), let the adapter implement it, and have app.ts hand it in; give it plain values, not the Config.`,
      severity: 'error',
      from: { path: `${root}domain/` },
      to: { path: `${root}(routes|${adapterFolders}|config\\.ts|${SERVICE_ENTRY})` },
    },
    {
      name: `${service}: routes use the domain, not adapters`,
      comment: `routes/ are thin: they call the domain; adapters (${adapters.join(', ')}) and the configuration reach them through app.ts.`,
      severity: 'error',
      from: { path: `${root}routes/` },
      to: { path: `${root}(${adapterFolders}|config\\.ts|${SERVICE_ENTRY})` },
    },
    {
      name: `${service}: routes reach the store only through the domain`,
      comment: `routes/ may name the store's types (to hand the store to the domain) but import nothing from store/ that runs: a read or write a route needs is a domain function (e.g. domain/authorize/transaction.ts's applicationNameOf).`,
      severity: 'error',
      from: { path: `${root}routes/` },
      to: { path: `${root}store/`, dependencyTypesNot: ['type-only'] },
    },
    {
      name: `${service}: adapters implement ports, they do not call up`,
      comment: `An adapter (${adapters.join(', ')}) may import the domain's ports and types, never routes, config.ts or the app: it is given its settings when app.ts builds it.`,
      severity: 'error',
      from: { path: `${root}(${adapterFolders})/` },
      to: { path: `${root}(routes|config\\.ts|${SERVICE_ENTRY})` },
    },
    {
      name: `${service}: config.ts only reads the environment`,
      comment: `config.ts parses the environment and stands above the domain: it may use the domain's value parsers and the env schemas adapters describe, never routes/, store/ or the app (and nothing below may import it).`,
      severity: 'error',
      from: { path: `${root}config\\.ts$` },
      to: { path: `${root}(routes|store)/|${root}${SERVICE_ENTRY}` },
    },
  ];
}

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      comment: 'These files import each other in a loop: move what both need into a file below them both.',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    {
      name: 'services talk only over HTTP',
      comment: 'A service never imports another service; shared wire formats live in @smsauth/contracts, shared plumbing in a package.',
      severity: 'error',
      from: { path: '^services/([^/]+)/' },
      to: { path: '^services/', pathNot: '^services/$1/' },
    },
    {
      name: 'packages stay below services',
      comment: 'A package is used by services; it never imports one.',
      severity: 'error',
      from: { path: '^packages/' },
      to: { path: '^services/' },
    },
    {
      name: 'contracts depend on nothing of ours',
      comment: '@smsauth/contracts holds wire formats (zod schemas) only: it imports no other package of this repository.',
      severity: 'error',
      from: { path: '^packages/contracts/' },
      to: { path: '^packages/', pathNot: '^packages/contracts/' },
    },
    {
      name: 'the service kit is plumbing',
      comment: '@smsauth/service-kit may use @smsauth/contracts and nothing else of ours.',
      severity: 'error',
      from: { path: '^packages/service-kit/' },
      to: { path: '^packages/', pathNot: '^packages/(service-kit|contracts)/' },
    },
    {
      name: 'no test code in production code',
      comment: 'Code under src/ never imports tests or @smsauth/test-support (a dev dependency).',
      severity: 'error',
      from: { path: '^(services|packages)/[^/]+/src/', pathNot: '^packages/test-support/' },
      to: { path: '(^|/)test/|^packages/test-support/' },
    },
    ...serviceLayers('identity', { adapters: ['delivery'] }),
    ...serviceLayers('sms-delivery-gateway', { adapters: ['providers'] }),
  ],
  options: {
    includeOnly: '^(services|packages)/[^/]+/src/',
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '(^|/)(dist|node_modules)/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.base.json' },
    // Workspace packages resolve to their TypeScript source (the same condition the tests use).
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['@smsauth/source', 'import', 'require', 'node', 'default'],
      extensions: ['.ts', '.js', '.json'],
    },
  },
};
