/**
 * A partial bench run (`--only`) writes into an existing BENCHMARKS.md without losing the rest: the
 * sections of the areas it ran replace the sections of the same title, their rows replace theirs in
 * the Summary table, and every other section, row and line stays as it was. Pure: text in, text out.
 */

interface Section {
  readonly title: string;
  /** The heading line and everything up to the next `## ` heading. */
  readonly text: string;
}

/** The lines before the first `## ` heading, then each `## ` section in order. */
export function splitSections(markdown: string): { head: string; sections: Section[] } {
  const parts = markdown.split(/^(?=## )/m);
  const head = parts[0]?.startsWith('## ') ? '' : (parts.shift() ?? '');
  const sections = parts.map((text) => ({ title: (text.split('\n', 1)[0] ?? '').slice(3).trim(), text }));
  return { head, sections };
}

const SUMMARY = 'Summary';

/** The first cell of a Markdown table row, trimmed; undefined for a line that is not a row. */
const firstCell = (line: string): string | undefined =>
  line.startsWith('|') ? line.slice(1).split('|', 1)[0]?.trim() : undefined;

/** A Summary row names an area by its section title, or by the title's start (a shortened name). */
const rowOf = (title: string) => (line: string) => {
  const cell = firstCell(line);
  return cell !== undefined && cell !== '' && (cell === title || title.startsWith(cell));
};

function mergeSummary(existing: Section, fresh: Section, titles: readonly string[]): Section {
  const lines = existing.text.split('\n');
  const freshLines = fresh.text.split('\n');
  for (const title of titles) {
    const row = freshLines.find(rowOf(title));
    if (row === undefined) continue;
    const at = lines.findIndex(rowOf(title));
    if (at >= 0) lines[at] = row;
    else {
      // After the table's last row.
      let last = -1;
      lines.forEach((l, i) => {
        if (l.startsWith('|')) last = i;
      });
      lines.splice(last + 1, 0, row);
    }
  }
  return { title: existing.title, text: lines.join('\n') };
}

/**
 * `existing` with the sections titled `titles` (and their Summary rows) taken from `fresh`. A
 * section the existing document lacks is added at the end. An empty `existing` gives `fresh`.
 */
export function mergeReport(existing: string, fresh: string, titles: readonly string[]): string {
  if (existing.trim() === '') return fresh;
  const old = splitSections(existing);
  const next = splitSections(fresh);
  const freshBy = new Map(next.sections.map((s) => [s.title, s]));
  const wanted = titles.filter((t) => freshBy.has(t));
  const done = new Set<string>();
  const out: Section[] = old.sections.map((s) => {
    if (s.title === SUMMARY) {
      const summary = freshBy.get(SUMMARY);
      return summary === undefined ? s : mergeSummary(s, summary, wanted);
    }
    const replacement = wanted.includes(s.title) ? freshBy.get(s.title) : undefined;
    if (replacement === undefined) return s;
    done.add(s.title);
    return replacement;
  });
  for (const t of wanted) if (!done.has(t)) out.push(freshBy.get(t) as Section);
  // One blank line between sections, one newline at the end.
  const body = out.map((s) => s.text.replace(/\n*$/, '')).join('\n\n');
  return `${old.head}${body}\n`;
}
