/**
 * The API's own alert codes. v2 alerts and v1 alert lists give the message as text in the
 * requested locale ("Alert oil pressure", "Pression d'huile"); the v1 alert referential
 * (`GET /referential/alert?locale=&brand=`) lists, per locale and brand group, each alert's
 * `indicatorCode` with its `indicatorLabel`, the same text. The book maps that text back to the
 * code, so an event carries `messageCode` whenever the API gave one — never a guessed one: a
 * label listed under two different codes is ambiguous and left out.
 */
export const alertCodeBook = (
  referential: readonly Readonly<Record<string, string>>[],
): ReadonlyMap<string, string> => {
  const book = new Map<string, string>();
  const ambiguous = new Set<string>();
  for (const entry of referential) {
    const code = entry.indicatorCode?.trim();
    const label = entry.indicatorLabel;
    if (!code || !label) continue;
    const known = book.get(label);
    if (known !== undefined && known !== code) ambiguous.add(label);
    else book.set(label, code);
  }
  for (const label of ambiguous) book.delete(label);
  return book;
};
