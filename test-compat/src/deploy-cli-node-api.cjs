// auth0-deploy-cli's Node API (`require('auth0-deploy-cli')`: dump / deploy), as a user's script
// calls it, in a process of its own that stays up for the whole test file: the tool and its SDK
// load once (seconds) instead of once per command, and the tool runs outside jest (whose module
// registry cannot require its ES-module dependencies on Node 20). One command at a time, by IPC:
// { id, command: 'dump' | 'deploy', params } in, { id, error? } out.
const { dump, deploy } = require('auth0-deploy-cli');

process.on('message', async ({ id, command, params }) => {
  try {
    await (command === 'dump' ? dump(params) : deploy(params));
    process.send({ id });
  } catch (err) {
    process.send({ id, error: err instanceof Error ? err.stack ?? err.message : String(err) });
  }
});
process.on('disconnect', () => process.exit(0));
