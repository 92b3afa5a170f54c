import { useEffect, useRef, useState } from 'preact/hooks';
import { apiErrorFrom } from '../../api';
import { ErrorMessage, Loading } from '../../components/ui';
import { useConsole } from '../../context';
import { languageName, PREVIEW_SCREENS, PREVIEW_WIDTHS, withoutInlineStyles, type PreviewRequest, type PreviewWidth } from './branding-data';

/** How long the preview waits after an edit before asking again: typing a colour asks once, not per key. */
const DEBOUNCE_MS = 300;

/** The height of the page shown, in its own pixels (the frame scrolls inside beyond it). */
const FRAME_HEIGHT = 800;

/**
 * The login page as the drafts would show it: identity renders it (`POST /branding/preview`,
 * nothing saved) into a sandboxed frame's `srcdoc` (no script runs in it), at a phone's or a
 * desktop's width, scaled down to fit the column.
 */
export function Preview({
  request,
  languages,
  setLanguage,
  setScreen,
}: {
  request: PreviewRequest;
  languages: string[];
  setLanguage: (language: PreviewRequest['language']) => void;
  setScreen: (screen: PreviewRequest['screen']) => void;
}) {
  const { api } = useConsole();
  const [page, setPage] = useState<{ html: string; css: string[] } | undefined>();
  const [error, setError] = useState<unknown>();
  const [width, setWidth] = useState<PreviewWidth>('phone');
  const requestKey = JSON.stringify(request);
  const latest = useRef(0);
  useEffect(() => {
    const asked = ++latest.current;
    const timer = setTimeout(async () => {
      try {
        const { data, error: refusal, response } = await api.POST('/api/v2/branding/preview', { body: request, parseAs: 'text' });
        if (asked !== latest.current) return;
        if (!response.ok) {
          setError(apiErrorFrom(response.status, parseJson(refusal), response.statusText));
          return;
        }
        setError(undefined);
        setPage(withoutInlineStyles(data as unknown as string));
      } catch (err) {
        if (asked === latest.current) setError(err);
      }
    }, DEBOUNCE_MS);
    return () => clearTimeout(timer);
  }, [requestKey]);

  const box = useRef<HTMLDivElement>(null);
  const [boxWidth, setBoxWidth] = useState(0);
  useEffect(() => {
    if (!box.current || typeof ResizeObserver === 'undefined') return;
    const observer = new ResizeObserver(([entry]) => setBoxWidth(entry!.contentRect.width));
    observer.observe(box.current);
    return () => observer.disconnect();
  }, []);
  const frameWidth = PREVIEW_WIDTHS[width].pixels;
  const scale = boxWidth ? Math.min(1, boxWidth / frameWidth) : 1;
  const screenLabel = PREVIEW_SCREENS.find(([s]) => s === request.screen)?.[1] ?? request.screen;

  return (
    <section class="card login-preview" aria-labelledby="preview-title">
      <h2 id="preview-title">Preview</h2>
      <p class="detail">The drafts above, not saved: the login page as identity renders it with them.</p>
      <div class="pickers">
        <div>
          <label for="preview-page">Page</label>
          <select id="preview-page" value={request.screen} onChange={(e) => setScreen((e.target as HTMLSelectElement).value as PreviewRequest['screen'])}>
            {PREVIEW_SCREENS.map(([screen, label]) => (
              <option key={screen} value={screen}>
                {label}
              </option>
            ))}
          </select>
        </div>
        <div>
          <label for="preview-language">Language</label>
          <select id="preview-language" value={request.language} onChange={(e) => setLanguage((e.target as HTMLSelectElement).value as PreviewRequest['language'])}>
            {languages.map((l) => (
              <option key={l} value={l}>
                {languageName(l)}
              </option>
            ))}
          </select>
        </div>
        <fieldset class="widths">
          <legend>Width</legend>
          {(Object.keys(PREVIEW_WIDTHS) as PreviewWidth[]).map((w) => (
            <label class="check" key={w}>
              <input type="radio" name="preview-width" value={w} checked={width === w} onChange={() => setWidth(w)} />
              {PREVIEW_WIDTHS[w].label}
            </label>
          ))}
        </fieldset>
      </div>
      <ErrorMessage error={error} />
      {!page && !error && <Loading what="the preview" />}
      <div class="preview-box" ref={box} style={{ height: `${Math.ceil(FRAME_HEIGHT * scale)}px` }}>
        {page && (
          <iframe
            class="preview-frame"
            data-width={width}
            title={`Preview of the login page: ${screenLabel}, ${languageName(request.language)}, ${PREVIEW_WIDTHS[width].label}`}
            sandbox="allow-same-origin"
            srcdoc={page.html}
            onLoad={(e) => adoptStyles(e.currentTarget as HTMLIFrameElement, page.css)}
            style={{ width: `${frameWidth}px`, height: `${FRAME_HEIGHT}px`, transform: `scale(${scale})` }}
          />
        )}
      </div>
      {scale < 1 && <p class="detail">Shown at {Math.round(scale * 100)} % of its size.</p>}
    </section>
  );
}

/** The preview's inline CSS, given to the frame's document as constructed stylesheets (see withoutInlineStyles). */
function adoptStyles(frame: HTMLIFrameElement, css: string[]): void {
  const view = frame.contentWindow as (Window & typeof globalThis) | null;
  const document = frame.contentDocument;
  if (!view || !document || !css.length) return;
  document.adoptedStyleSheets = css.map((text) => {
    const sheet = new view.CSSStyleSheet();
    sheet.replaceSync(text);
    return sheet;
  });
}

function parseJson(body: unknown): unknown {
  if (typeof body !== 'string') return body;
  try {
    return JSON.parse(body);
  } catch {
    return body;
  }
}
