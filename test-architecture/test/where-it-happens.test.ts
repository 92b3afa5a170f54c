import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const REPO = join(__dirname, '..', '..');

interface Place {
  behaviour: string;
  file: string;
  definition: string;
}

/** The rows of docs/architecture.md's "Where it happens" table: behaviour, `file`, `function` (or `Class.method`). */
function readMap(): Place[] {
  const page = readFileSync(join(REPO, 'docs', 'architecture.md'), 'utf8');
  const section = /^## Where it happens\n([\s\S]*?)(?=^#|(?![\s\S]))/m.exec(page)?.[1];
  if (!section) throw new Error('docs/architecture.md has no "## Where it happens" section');
  return section
    .split('\n')
    .filter((line) => /^\|.*`/.test(line))
    .map((line) => {
      const [behaviour, file, definition] = line.split('|').slice(1, 4).map((cell) => cell.trim());
      return { behaviour: behaviour ?? '', file: (file ?? '').replace(/`/g, ''), definition: (definition ?? '').replace(/`/g, '') };
    });
}

/** True when `source` defines `name`: a function, class, const, or (as Class.member) a member of a class or object. */
function defines(source: string, name: string): boolean {
  const [owner, member] = name.includes('.') ? name.split('.') : [undefined, name];
  const ownerFound = owner === undefined || new RegExp(`(class|interface|function|const)\\s+${owner}\\b`).test(source);
  const memberPattern = owner
    ? new RegExp(`^\\s+(?:(?:public|private|protected|readonly|static|async|get)\\s+)*${member}\\s*[(:=<]`, 'm')
    : new RegExp(`(?:function\\*?|class|const|let|interface|type)\\s+${member}\\b`);
  return ownerFound && memberPattern.test(source);
}

const BEHAVIOURS_A_NEWCOMER_ASKS_ABOUT = [
  /code is generated/i,
  /code is sent/i,
  /code is checked/i,
  /rate limit is counted/i,
  /brute-force block starts/i,
  /token is signed/i,
  /gateway token is signed/i,
  /gateway token is checked/i,
  /airport API rejects a token/i,
  /JWKS is refetched/i,
  /key rotates/i,
];

describe("the architecture page's map from behaviour to file", () => {
  const places = readMap();

  it('answers each question a newcomer asks', () => {
    for (const question of BEHAVIOURS_A_NEWCOMER_ASKS_ABOUT) {
      expect(places.map((place) => place.behaviour)).toContainEqual(expect.stringMatching(question));
    }
  });

  it.each(places.map((place) => [place.behaviour, place] as const))('names a file and a definition that exist for "%s"', (_behaviour, place) => {
    expect(existsSync(join(REPO, place.file))).toBe(true);
    const source = readFileSync(join(REPO, place.file), 'utf8');
    if (!defines(source, place.definition)) throw new Error(`${place.file} does not define ${place.definition}`);
  });
});
