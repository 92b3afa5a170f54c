import { childLogFormat } from '../src/launcher';

describe('the LOG_FORMAT pnpm start gives the services', () => {
  it('is pretty when their lines are echoed to a terminal outside production', () => {
    expect(childLogFormat({}, true)).toBe('pretty');
    expect(childLogFormat({ NODE_ENV: 'development' }, true)).toBe('pretty');
  });

  it('is left unset (the services then log JSON into the pipe) otherwise', () => {
    expect(childLogFormat({}, false)).toBeUndefined();
    expect(childLogFormat({ NODE_ENV: 'production' }, true)).toBeUndefined();
  });

  it('is whatever the user set', () => {
    expect(childLogFormat({ LOG_FORMAT: 'json' }, true)).toBe('json');
    expect(childLogFormat({ LOG_FORMAT: 'pretty' }, false)).toBe('pretty');
  });
});
