import { readText, serviceNames, services } from './support';

/** Dockerfile instructions, continuation lines joined and comments dropped. */
function instructions(text: string): Array<{ keyword: string; args: string }> {
  return text
    .replace(/\\\n/g, ' ')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'))
    .map((line) => {
      const [keyword = '', ...rest] = line.split(/\s+/);
      return { keyword: keyword.toUpperCase(), args: rest.join(' ') };
    });
}

/** The instructions of the last stage: what the runtime image is made of. */
function finalStage(all: ReturnType<typeof instructions>) {
  const lastFrom = all.map((i) => i.keyword).lastIndexOf('FROM');
  return all.slice(lastFrom);
}

describe.each(serviceNames)('deploy/Dockerfile.%s', (name) => {
  const text = readText(`deploy/Dockerfile.${name}`);
  const all = instructions(text);
  const runtime = finalStage(all);
  const { port } = services[name];

  it('takes the base image from ARG NODE_IMAGE, defaulting to node:20-bookworm-slim', () => {
    expect(all[0]).toEqual({ keyword: 'ARG', args: 'NODE_IMAGE=node:20-bookworm-slim' });
    for (const from of all.filter((i) => i.keyword === 'FROM')) {
      expect(from.args).toMatch(/^(\$\{NODE_IMAGE\}|install)( AS \w+)?$/);
    }
  });

  it('installs from the lockfile, builds, and deploys only this service with production dependencies', () => {
    const runs = all.filter((i) => i.keyword === 'RUN').map((i) => i.args);
    expect(runs.some((r) => r.includes('corepack enable') && r.includes('corepack install'))).toBe(true);
    expect(runs.some((r) => r.includes('pnpm fetch --frozen-lockfile'))).toBe(true);
    expect(runs.some((r) => r.includes('pnpm install --frozen-lockfile'))).toBe(true);
    const build = runs.find((r) => r.includes('deploy --prod')) ?? '';
    expect(build).toContain(`pnpm --filter '@smsauth/${name}...' run build`);
    expect(build).toContain(`pnpm --filter @smsauth/${name} deploy --prod`);
  });

  it('is a multi-stage build whose runtime stage copies only the deployed service, and the licence and notices', () => {
    expect(all.filter((i) => i.keyword === 'FROM').length).toBeGreaterThanOrEqual(3);
    expect(runtime[0]?.args).toBe('${NODE_IMAGE}');
    expect(runtime.filter((i) => i.keyword === 'COPY').map((i) => i.args)).toEqual(['--from=build /out /app', 'LICENSE NOTICE THIRD-PARTY-NOTICES.md /app/']);
  });

  it('runs as the non-root node user, in production mode', () => {
    const users = runtime.filter((i) => i.keyword === 'USER').map((i) => i.args);
    expect(users).toEqual(['node']);
    expect(runtime.filter((i) => i.keyword === 'ENV').map((i) => i.args)).toContain('NODE_ENV=production');
    // Nothing after USER may run as root again or change the command's user.
    const userIndex = runtime.findIndex((i) => i.keyword === 'USER');
    expect(runtime.slice(userIndex + 1).filter((i) => i.keyword === 'RUN')).toEqual([]);
  });

  it('exposes the service port and health-checks /healthz on it with node', () => {
    expect(runtime.filter((i) => i.keyword === 'EXPOSE').map((i) => i.args)).toEqual([String(port)]);
    const healthcheck = runtime.find((i) => i.keyword === 'HEALTHCHECK')?.args ?? '';
    const command = JSON.parse(healthcheck.slice(healthcheck.indexOf('CMD') + 3)) as string[];
    expect(command.slice(0, 2)).toEqual(['node', '-e']);
    expect(command[2]).toContain('/healthz');
    expect(command[2]).toContain(`process.env.PORT||${port}`);
  });

  it('starts node itself in exec form, so SIGTERM reaches the service', () => {
    const cmd = runtime.filter((i) => i.keyword === 'CMD').map((i) => JSON.parse(i.args) as string[]);
    expect(cmd).toEqual([['node', 'dist/main.js']]);
    expect(runtime.some((i) => i.keyword === 'ENTRYPOINT')).toBe(false);
  });
});

describe('the three Dockerfiles', () => {
  const installStage = (name: string) => {
    const text = readText(`deploy/Dockerfile.${name}`);
    return text.slice(text.indexOf('ARG NODE_IMAGE'), text.indexOf('FROM install AS build'));
  };

  it('share their install stage word for word, so one build caches it for all', () => {
    const [first, ...others] = serviceNames.map(installStage);
    expect(first).toContain('pnpm install --frozen-lockfile');
    for (const other of others) expect(other).toBe(first);
  });
});

describe('.dockerignore', () => {
  const patterns = readText('.dockerignore')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'));

  it('keeps dependencies, build output, local data and git history out of the context', () => {
    expect(patterns).toEqual(expect.arrayContaining(['.git', '**/node_modules', '**/dist', '**/.data']));
  });

  it('keeps the files the install needs: lockfile, workspace file and every package manifest', () => {
    for (const needed of ['pnpm-lock.yaml', 'pnpm-workspace.yaml', 'package.json']) expect(patterns).not.toContain(needed);
    expect(patterns).not.toContain('**/package.json');
    // deploy/ is a workspace package: its manifest must stay for the frozen lockfile.
    expect(patterns.indexOf('!deploy/package.json')).toBeGreaterThan(patterns.indexOf('deploy/*'));
  });

  it('keeps LICENSE, NOTICE and THIRD-PARTY-NOTICES.md, which the runtime stages copy from the context', () => {
    for (const file of ['LICENSE', 'NOTICE', 'THIRD-PARTY-NOTICES.md']) expect(readText(file)).not.toBe('');
    expect(patterns.filter((pattern) => /LICENSE|NOTICE/.test(pattern))).toEqual(['!THIRD-PARTY-NOTICES.md']);
    // The last matching pattern wins: the exception must come after the rule dropping every *.md.
    expect(patterns.indexOf('!THIRD-PARTY-NOTICES.md')).toBeGreaterThan(patterns.indexOf('**/*.md'));
    expect(patterns.filter((pattern) => ['*', '**', '**/*', '/*'].includes(pattern))).toEqual([]);
  });
});

describe('deploy/Dockerfile.identity: the one-off command', () => {
  const runtime = finalStage(instructions(readText('deploy/Dockerfile.identity')));

  it('puts smsauth-identity on the PATH, running the service\'s dist/cli.js with the arguments given', () => {
    const run = runtime.filter((i) => i.keyword === 'RUN').map((i) => i.args).join(' ');
    expect(run).toContain(`printf '#!/bin/sh\\nexec node /app/dist/cli.js "$@"\\n' > /usr/local/bin/smsauth-identity`);
    expect(run).toContain('chmod 0755 /usr/local/bin/smsauth-identity');
  });
});
