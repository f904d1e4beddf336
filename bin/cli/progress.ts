/**
 * A progress bar for long work (bulk enrollment): redrawn in place on a terminal, silent otherwise
 * (pipes and `--json` stay clean for scripts).
 */
export interface Progress {
  tick(n?: number): void;
  done(): void;
}

export function progressBar(
  total: number,
  label: string,
  stream: { isTTY?: boolean; write(chunk: string): unknown } = process.stderr,
): Progress {
  let count = 0;
  const width = 30;
  const draw = () => {
    if (!stream.isTTY) return;
    const filled = total === 0 ? width : Math.round((count / total) * width);
    stream.write(`\r${label} [${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${count}/${total}`);
  };
  draw();
  return {
    tick(n = 1) {
      count = Math.min(total, count + n);
      draw();
    },
    done() {
      if (stream.isTTY) stream.write('\n');
    },
  };
}

/** `vin,contract,brand` lines (a header line and blank lines are skipped); errors name the line. */
export function parseContractsCsv(
  text: string,
): { ok: true; rows: { vin: string; contract: string; brand: string }[] } | { ok: false; message: string } {
  const rows: { vin: string; contract: string; brand: string }[] = [];
  const lines = text.split(/\r?\n/);
  for (const [i, raw] of lines.entries()) {
    const line = raw.trim();
    if (line === '' || (i === 0 && /^vin\s*,/i.test(line))) continue;
    const cells = line.split(',').map((c) => c.trim());
    const [vin, contract, brand] = cells;
    if (cells.length !== 3 || !vin || !contract || !brand) {
      return {
        ok: false,
        message: `line ${i + 1}: expected "vin,contract,brand", got "${line.slice(0, 80)}"`,
      };
    }
    rows.push({ vin, contract, brand });
  }
  if (rows.length === 0) return { ok: false, message: 'no vin,contract,brand lines' };
  return { ok: true, rows };
}
