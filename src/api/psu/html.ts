// HTML escaping for every value put into a page (never trust a name, an account or a message).
const ESCAPES: Readonly<Record<string, string>> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (character) => ESCAPES[character]!);
}

/** A template tag that escapes every interpolated value unless it is already Html. */
export class Html {
  constructor(readonly text: string) {}
}

export function html(
  strings: TemplateStringsArray,
  ...values: readonly (string | Html | undefined | null)[]
): Html {
  let text = strings[0]!;
  values.forEach((value, index) => {
    text += (value instanceof Html ? value.text : escapeHtml(value ?? '')) + strings[index + 1]!;
  });
  return new Html(text);
}
