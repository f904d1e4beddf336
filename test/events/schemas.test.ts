import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Ajv from 'ajv-draft-04';
import { afterEach, describe, expect, it } from 'vitest';
import {
  compareWithDirectory,
  compareWithPublished,
  compareWithRevision,
  schemasDir,
} from '../../bin/generate-schemas';
import { definitions } from '../../functions/core/events/catalogue';
import { allSchemaFiles, DRAFT_04 } from '../../functions/core/events/json-schema';

const temps: string[] = [];
const copyOfSchemas = () => {
  const dir = mkdtempSync(join(tmpdir(), 'carhook-schemas-'));
  temps.push(dir);
  cpSync(schemasDir, dir, { recursive: true });
  return dir;
};
afterEach(() => {
  for (const d of temps.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe('events-schemas/ (the published contract)', () => {
  it('the committed files are exactly what the code generates (run npm run schemas)', () => {
    expect(compareWithDirectory(schemasDir)).toEqual([]);
  });

  it('has one Draft 4 schema per event type and version, each compiling with ajv-draft-04', () => {
    const ajv = new Ajv({ strict: true }).addFormat('date-time', /./);
    for (const def of definitions) {
      const file = join(schemasDir, `${def.type}.v${def.version}.json`);
      const schema = JSON.parse(readFileSync(file, 'utf8'));
      expect(schema.$schema).toBe(DRAFT_04);
      expect(schema.properties.type.enum).toEqual([def.type]);
      expect(JSON.stringify(schema)).not.toContain('$defs');
      expect(() => ajv.compile(schema)).not.toThrow();
    }
  });

  it('generation is deterministic (stable text, trailing newline)', () => {
    const a = allSchemaFiles();
    const b = allSchemaFiles();
    expect([...a.entries()]).toEqual([...b.entries()]);
    for (const text of a.values()) expect(text.endsWith('}\n')).toBe(true);
  });
});

describe('compareWithDirectory (the --check mode and the compatibility gate)', () => {
  const file = 'vehicle.alert.raised.v1.json';
  type Schema = {
    properties: { data: { properties: Record<string, unknown>; required: string[] } };
  };
  const edit = (dir: string, change: (schema: Schema) => void) => {
    const path = join(dir, file);
    // Parsing boundary: the file is one of ours, with the shape above.
    const schema = JSON.parse(readFileSync(path, 'utf8')) as Schema;
    change(schema);
    writeFileSync(path, `${JSON.stringify(schema, null, 2)}\n`);
  };

  it('reports a code change that would REMOVE a published field as Breaking', () => {
    // Published file has a field the code no longer generates = the code removed it.
    const dir = copyOfSchemas();
    edit(dir, (s) => {
      s.properties.data.properties.legacyCode = { type: 'string' };
    });
    expect(compareWithDirectory(dir)).toEqual([
      expect.objectContaining({
        kind: 'Breaking',
        file,
        detail: expect.stringContaining('/data/legacyCode: field removed'),
      }),
    ]);
  });

  it('reports a code change that would RETYPE a published field as Breaking', () => {
    const dir = copyOfSchemas();
    edit(dir, (s) => {
      s.properties.data.properties.alertId = { type: 'number' };
    });
    expect(compareWithDirectory(dir)[0]).toMatchObject({
      kind: 'Breaking',
      detail: expect.stringContaining('/data/alertId: type changed'),
    });
  });

  it('reports a newly REQUIRED field as Breaking', () => {
    const dir = copyOfSchemas();
    edit(dir, (s) => {
      s.properties.data.required = s.properties.data.required.filter((r) => r !== 'initial');
    });
    expect(compareWithDirectory(dir)[0]).toMatchObject({
      kind: 'Breaking',
      detail: expect.stringContaining('/data/initial: field newly required'),
    });
  });

  it('reports a compatible difference (new optional field in the code) as Drift only', () => {
    const dir = copyOfSchemas();
    edit(dir, (s) => {
      delete s.properties.data.properties.advice;
    });
    expect(compareWithDirectory(dir)).toEqual([expect.objectContaining({ kind: 'Drift', file })]);
  });

  it('reports missing files, unknown files, and keeps older published versions', () => {
    const dir = copyOfSchemas();
    rmSync(join(dir, file));
    writeFileSync(join(dir, 'vehicle.teleported.v1.json'), '{}\n');
    writeFileSync(join(dir, 'vehicle.alert.fixed.v0.json'), '{}\n');
    const problems = compareWithDirectory(dir);
    expect(problems.map((p) => [p.kind, p.file]).sort()).toEqual([
      ['Missing', file],
      ['Unknown', 'vehicle.teleported.v1.json'],
    ]);
  });
});

describe('compareWithRevision / compareWithPublished (the gate against what git has published)', () => {
  const file = 'vehicle.collision.detected.v1.json';
  const current = () => JSON.parse(readFileSync(join(schemasDir, file), 'utf8'));

  it('flags a published field the code no longer has, even after the file was regenerated', () => {
    const published = current();
    published.properties.data.properties.impactG = { type: 'number' };
    const problems = compareWithPublished([file], () => JSON.stringify(published), 'HEAD');
    expect(problems).toEqual([
      expect.objectContaining({
        kind: 'Breaking',
        file,
        detail: expect.stringContaining('/data/impactG: field removed'),
      }),
    ]);
  });

  it('accepts what is published unchanged, and ignores files of older versions', () => {
    const text = readFileSync(join(schemasDir, file), 'utf8');
    expect(compareWithPublished([file, 'vehicle.collision.detected.v0.json'], () => text, 'HEAD')).toEqual(
      [],
    );
  });

  it('reports an unreadable published file instead of crashing', () => {
    expect(compareWithPublished([file], () => '{not json', 'HEAD')[0]).toMatchObject({ kind: 'Drift', file });
  });

  it('finds nothing published outside a git work tree', () => {
    const dir = mkdtempSync(join(tmpdir(), 'carhook-nogit-'));
    temps.push(dir);
    expect(compareWithRevision(dir)).toEqual([]);
  });

  it('the code is compatible with the schemas published at HEAD', () => {
    expect(compareWithRevision(join(schemasDir, '..'), 'HEAD')).toEqual([]);
  });
});
