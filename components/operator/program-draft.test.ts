// The editor's draft: what it sends for what was typed, and the errors it shows before sending,
// under the names the API's `fields` use.
import { describe, expect, it } from 'vitest';
import type { Program } from '@/lib/client/operator';
import { defaultDesign } from '@/lib/programs/design';
import { bodyOf, changeOf, checkDraft, designOf, draftOf, fromLocalInput, toLocalInput } from './program-draft';

const saved: Program = {
  slug: 'summit-2026',
  name: 'Summit 2026',
  status: 'draft',
  opensAt: null,
  closesAt: '2026-12-12T18:00:00.000Z',
  supply: 500,
  policy: null,
  checkIn: 'once',
  design: defaultDesign(),
  passes: 0,
  active: 0,
  devices: 0,
  claimUrl: 'https://passes.example/p/summit-2026',
  createdAt: '2026-11-25T10:00:00.000Z',
  updatedAt: '2026-11-25T10:00:00.000Z',
};

describe('the program draft', () => {
  it('round-trips a saved program: nothing to send when nothing was typed', () => {
    const draft = draftOf(saved);
    expect(draft.supply).toBe('500');
    expect(fromLocalInput(draft.closesAt)).toBe('2026-12-12T18:00:00.000Z');
    expect(designOf(draft.design!)).toEqual(defaultDesign());
    expect(changeOf(saved, bodyOf(draft).body)).toEqual({});
    expect(checkDraft(draft, false)).toEqual({});
  });

  it('sends only what changed; emptied fields are cleared with null', () => {
    const draft = { ...draftOf(saved), name: 'Summit 2027', supply: '', closesAt: '' };
    expect(changeOf(saved, bodyOf(draft).body)).toEqual({ name: 'Summit 2027', supply: null, closesAt: null });
  });

  it('reads a datetime-local value in the local time zone, and writes one back the same', () => {
    const iso = fromLocalInput('2031-05-06T07:08');
    expect(iso).toBe(new Date(2031, 4, 6, 7, 8).toISOString());
    expect(toLocalInput(iso)).toBe('2031-05-06T07:08');
    expect(fromLocalInput('')).toBeUndefined();
    expect(toLocalInput(null)).toBe('');
  });

  it('names each problem as the API would, before anything is sent', () => {
    const draft = draftOf(null);
    const design = draft.design!;
    const errors = checkDraft(
      {
        ...draft,
        slug: 'No Spaces',
        name: '',
        supply: 'ten',
        policy: '{"token": ',
        design: {
          ...design,
          backgroundColor: '#12',
          fields: { ...design.fields, primary: [{ id: 'a', key: 'holder', label: 'Holder', value: 'Hi {nobody}' }] },
          locations: [{ id: 'b', latitude: '91', longitude: '', relevantText: '' }],
        },
      },
      true,
    );
    expect(errors).toMatchObject({
      slug: expect.stringContaining('lowercase'),
      name: 'must not be empty',
      supply: 'must be a number',
      policy: expect.stringMatching(/^must be JSON/),
      'design.backgroundColor': 'must be a colour as #rrggbb',
      'design.fields.primary.0.value': expect.stringContaining('may hold only the placeholders'),
      'design.locations.0.latitude': 'must be from -90 to 90',
      'design.locations.0.longitude': 'must be a number',
    });
  });

  it('holds a group to its style’s count, and a window in order', () => {
    const draft = draftOf(null);
    const design = draft.design!;
    const row = (key: string) => ({ id: key, key, label: key, value: 'x' });
    const errors = checkDraft(
      {
        ...draft,
        slug: 'ok-slug',
        name: 'OK',
        opensAt: '2030-01-02T00:00',
        closesAt: '2030-01-01T00:00',
        design: { ...design, fields: { ...design.fields, primary: [row('a'), row('b')] } },
      },
      true,
    );
    expect(errors).toEqual({
      closesAt: 'must be after opensAt',
      'design.fields.primary': 'must list at most 1 fields for the generic style',
    });
  });
});
