/*
 * HTML built from tagged templates: every interpolated value is escaped unless it is itself Html, so
 * catalogue text (project names, descriptions, facility records) can never inject markup.
 */
const RAW = Symbol('html');

export interface Html {
  readonly [RAW]: string;
}

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (character) => ESCAPES[character]);
}

function render(value: unknown): string {
  if (value === null || value === undefined || value === false) return '';
  if (Array.isArray(value)) return value.map(render).join('');
  if (typeof value === 'object' && RAW in value) return (value as Html)[RAW];
  return escapeHtml(String(value));
}

export function html(strings: TemplateStringsArray, ...values: unknown[]): Html {
  let out = strings[0];
  values.forEach((value, i) => {
    out += render(value) + strings[i + 1];
  });
  return { [RAW]: out };
}

export function htmlText(fragment: Html): string {
  return fragment[RAW];
}
