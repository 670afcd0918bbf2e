// The console's programs in a real browser, against a real server whose OPERATOR_WALLETS is the
// test's wallet: the list, the editor with its live picture (front and back, following each
// keystroke), errors as typed and as the API answers them, publish and close, the claim page
// link, images with a preview; by keyboard and at 375 px, axe-clean, with the page's strict CSP
// (the fixtures fail a test on any CSP violation or script error).
import { crc32, deflateSync } from 'node:zlib';
import type { Page, TestInfo } from '@playwright/test';
import { freePort } from '../scripts/support/server-process';
import { analyzeAccessibility } from './support/axe';
import { expect, test } from './support/fixtures';
import { TestServer } from './support/server';
import { E2EWallet } from './support/wallet';

const DESKTOP = { viewport: { width: 1280, height: 900 } };
const PHONE = { viewport: { width: 375, height: 667 }, isMobile: true, hasTouch: true, deviceScaleFactor: 2 };

/** The sample holder the editor fills placeholders from (ProgramEditor.tsx). */
const SAMPLE_ADDRESS = '7xKXtg2CW87d97TXJSDpbD5jBkheTqA83TZRuJosgAsU';

const operator = new E2EWallet({ name: 'Operator Wallet', signIn: true });
let server: TestServer;

test.describe.configure({ mode: 'default' }); // one server, tests in order in one worker

test.beforeAll(async () => {
  test.setTimeout(240_000);
  server = new TestServer({ port: await freePort(), env: { OPERATOR_WALLETS: operator.address } });
  await server.start(180_000);
});

test.afterAll(async () => {
  await server?.dispose();
});

/** A small PNG, made here: `width` × `height` pixels of one colour (RGB, 8 bits). */
function png(width: number, height: number, rgb: [number, number, number]): Buffer {
  const chunk = (type: string, data: Buffer) => {
    const length = Buffer.alloc(4);
    length.writeUInt32BE(data.length);
    const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(body));
    return Buffer.concat([length, body, crc]);
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.set([8, 2, 0, 0, 0], 8); // 8 bits, RGB, deflate, no filter, no interlace
  const row = Buffer.concat([Buffer.from([0]), Buffer.concat(Array.from({ length: width }, () => Buffer.from(rgb)))]);
  const pixels = deflateSync(Buffer.concat(Array.from({ length: height }, () => row)));
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', pixels),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

/** A bearer session for the operator wallet, through the API (to check what the page did). */
async function apiToken(): Promise<string> {
  const init = (await (await fetch(`${server.url}/api/v1/operator/sessions/init?publicKey=${operator.address}`)).json()) as { message: string };
  const response = await fetch(`${server.url}/api/v1/operator/sessions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ message: init.message, signature: operator.keys.sign(init.message), publicKey: operator.address }),
  });
  expect(response.status).toBe(201);
  return ((await response.json()) as { token: string }).token;
}

async function programByApi(slug: string) {
  const response = await fetch(`${server.url}/api/v1/operator/programs/${slug}`, { headers: { authorization: `Bearer ${await apiToken()}` } });
  expect(response.status).toBe(200);
  return (await response.json()) as {
    status: string;
    name: string;
    closesAt: string | null;
    supply: number | null;
    design: { logoText?: string; backgroundColor: string; fields: Record<string, { key: string; label: string; value: string }[]> };
  };
}

async function createByApi(slug: string, name: string): Promise<void> {
  const response = await fetch(`${server.url}/api/v1/operator/programs`, {
    method: 'POST',
    headers: { authorization: `Bearer ${await apiToken()}`, 'content-type': 'application/json' },
    body: JSON.stringify({ slug, name }),
  });
  expect(response.status).toBe(201);
}

class Console {
  private shots = 0;
  constructor(
    readonly page: Page,
    private readonly info: TestInfo,
  ) {}

  async signIn(): Promise<void> {
    await operator.install(this.page);
    await this.page.goto(`${server.url}/operator`);
    await this.page.getByRole('button', { name: 'Sign in with Operator Wallet' }).click();
    await expect(this.page.getByRole('heading', { name: /^Signed in as/ })).toBeVisible();
    await expect(this.programRow('default')).toBeVisible();
  }

  /** Screenshot (kept), axe (no violation of any impact), and nothing wider than the screen. */
  async check(label: string): Promise<void> {
    await this.page.evaluate(() => document.fonts.ready);
    const path = this.info.outputPath(`${String(++this.shots).padStart(2, '0')}-${label}.png`);
    await this.page.screenshot({ path, fullPage: true, animations: 'disabled' });
    await this.info.attach(label, { path, contentType: 'image/png' });
    const axe = await analyzeAccessibility(this.page);
    expect(
      axe.violations.map((v) => `${v.impact} ${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(' ')).join(', ')})`),
      `axe on "${label}"`,
    ).toEqual([]);
    const width = await this.page.evaluate(() => document.documentElement.scrollWidth);
    expect(width, `page width on "${label}"`).toBeLessThanOrEqual(this.page.viewportSize()!.width);
  }

  programs() {
    return this.page.getByRole('region', { name: 'Programs' });
  }

  programRow(slug: string) {
    return this.programs().locator(`tr[data-program="${slug}"]`);
  }

  editor() {
    return this.page.locator('section[data-editing]');
  }

  /** The live picture: PassPicture's figure, front and back. */
  picture() {
    return this.editor().getByRole('figure');
  }

  /** The back of the picture: its list of fields. */
  pictureBack() {
    return this.picture().locator('dl');
  }

  fieldRow(group: string, index: number) {
    return this.editor().locator(`[data-field-row="${group}-${index}"]`);
  }

  dialog() {
    return this.page.getByRole('dialog');
  }
}

test.describe('on a desktop', () => {
  test.use(DESKTOP);

  test('creates a program; the picture follows each edit, front and back; errors at their fields; publish, its claim page, close', async ({ page }, info) => {
    const console = new Console(page, info);
    await console.signIn();
    await expect(console.programRow('default')).toContainText('Live');
    // The editor is not part of the console's first load: its chunk comes when it is opened.
    const scripts: string[] = [];
    page.on('request', (request) => request.resourceType() === 'script' && scripts.push(request.url()));

    await console.programs().getByRole('button', { name: 'New program' }).click();
    await expect(console.editor().getByRole('heading', { name: 'New program' })).toBeFocused();
    expect(scripts.length, 'the editor loads when opened').toBeGreaterThan(0);
    const editor = console.editor();

    await editor.getByLabel('Name', { exact: true }).fill('Summit 2026');
    await editor.getByLabel('Slug').fill('summit-2026');
    // The default design: the program's name as logo text, the holder on the front, the address on the back.
    await expect(console.picture()).toContainText('Summit 2026');
    await expect(console.picture()).toContainText('7xKX…gAsU');
    await expect(console.pictureBack()).toContainText(SAMPLE_ADDRESS);

    // Each keystroke shows: logo text, a colour, a front field's value (a placeholder filled in).
    const logoText = editor.getByLabel('Logo text');
    await logoText.pressSequentially('Summit Pass');
    await expect(console.picture()).toContainText('Summit Pass');
    await logoText.press('Backspace');
    await expect(console.picture()).toContainText('Summit Pas');
    await expect(console.picture()).not.toContainText('Summit Pass');

    const background = editor.getByRole('textbox', { name: 'Background colour', exact: true });
    await background.fill('#123456');
    await expect.poll(() => console.picture().evaluate((figure) => getComputedStyle(figure).getPropertyValue('--pass-bg').trim())).toBe('#123456');

    const primaryValue = console.fieldRow('primary', 0).getByLabel('Value', { exact: true });
    await primaryValue.fill('');
    await primaryValue.pressSequentially('No. {serialNumber}');
    await expect(console.picture()).toContainText('No. SAMPLE-0001');
    await expect(console.pictureBack()).not.toContainText('No. SAMPLE-0001'); // the front only

    // A back field: added, typed, a placeholder inserted from its chip; it shows on the back.
    await editor.getByRole('button', { name: 'Add back field' }).click();
    const doors = console.fieldRow('back', 1);
    await expect(doors.getByLabel('Label', { exact: true })).toBeFocused();
    await doors.getByLabel('Label', { exact: true }).fill('Doors');
    await doors.getByLabel('Value', { exact: true }).fill('09:00 with ');
    await doors.getByRole('button', { name: '{walletType}' }).click();
    await expect(doors.getByLabel('Value', { exact: true })).toHaveValue('09:00 with {walletType}');
    await expect(console.pictureBack()).toContainText('Doors');
    await expect(console.pictureBack()).toContainText('09:00 with Phantom');
    // Reordered: Doors first on the back.
    await doors.getByRole('button', { name: 'Move up Doors' }).click();
    await expect(console.fieldRow('back', 0).getByLabel('Label', { exact: true })).toHaveValue('Doors');
    await expect(console.fieldRow('back', 0).getByRole('button', { name: 'Move down Doors' })).toBeFocused();
    await expect(console.pictureBack().locator('dt').first()).toHaveText('Doors');

    // Checked as typed: a colour that is not #rrggbb is named at its input, and nothing is sent.
    await background.fill('#12');
    await expect(background).toHaveAttribute('aria-invalid', 'true');
    await expect(editor.getByText('must be a colour as #rrggbb')).toBeVisible();
    await background.fill('#123456');
    await expect(background).not.toHaveAttribute('aria-invalid');

    // What only the service can check comes back as `fields`, shown at its input: a policy it cannot read.
    const policy = editor.getByLabel('Who may claim (policy)');
    await policy.fill('{"nonsense": true}');
    await editor.getByRole('button', { name: 'Create program' }).click();
    await expect(editor.getByRole('alert').first()).toContainText('The service refused the program');
    await expect(policy).toHaveAttribute('aria-invalid', 'true');
    await expect(policy).toBeFocused();
    const policyError = page.locator(`#${await policy.getAttribute('id')}-error`);
    await expect(policyError).not.toBeEmpty();
    await console.check('editor-refused-policy');

    // Fixed: created, as a draft; the editor now edits it.
    await policy.fill('');
    await expect(policy).not.toHaveAttribute('aria-invalid');
    await editor.getByLabel('Supply').fill('500');
    await editor.getByRole('button', { name: 'Create program' }).click();
    await expect(editor.getByRole('heading', { name: 'Edit Summit 2026' })).toBeFocused();
    await expect(console.programRow('summit-2026')).toHaveAttribute('data-status', 'draft');
    await expect(console.programRow('summit-2026')).toContainText('0 of 500');
    const saved = await programByApi('summit-2026');
    expect(saved.status).toBe('draft');
    expect(saved.supply).toBe(500);
    expect(saved.design.logoText).toBe('Summit Pas');
    expect(saved.design.backgroundColor).toBe('#123456');
    expect(saved.design.fields.primary).toEqual([{ key: 'holder', label: 'Holder', value: 'No. {serialNumber}' }]);
    expect(saved.design.fields.back?.map((field) => field.label)).toEqual(['Doors', 'Wallet address']);

    // The claim page, in the list and in the editor.
    const claimUrl = `${server.url}/p/summit-2026`;
    await expect(console.programRow('summit-2026').getByRole('link', { name: 'Claim page of Summit 2026 (opens in a new tab)' })).toHaveAttribute(
      'href',
      claimUrl,
    );
    await expect(editor.getByRole('link', { name: /^Claim page of Summit 2026/ })).toHaveAttribute('href', claimUrl);
    await expect(console.programRow('default').getByRole('link', { name: /^Claim page/ })).toHaveAttribute('href', `${server.url}/`);

    // An edit of the saved program: a closing time in the operator's own time zone, sent as an instant.
    await expect(editor.getByText(/Your time zone: /).first()).toBeVisible();
    await editor.getByLabel('Closes').fill('2031-05-06T07:08');
    await editor.getByRole('button', { name: 'Save changes' }).click();
    await expect(page.getByRole('status').filter({ hasText: 'Changes to Summit 2026 saved.' })).toBeAttached();
    const localClose = await page.evaluate(() => new Date('2031-05-06T07:08').toISOString());
    expect((await programByApi('summit-2026')).closesAt).toBe(localClose);
    await console.check('editor-saved');

    // Publish, behind a confirmation.
    await editor.getByRole('button', { name: 'Publish' }).click();
    await expect(console.dialog().getByRole('heading')).toHaveText('Publish Summit 2026?');
    await console.dialog().getByRole('button', { name: 'Publish' }).click();
    await expect(console.dialog()).toBeHidden();
    await expect(editor.locator('[data-program-status]')).toHaveAttribute('data-program-status', 'live');
    await expect(console.programRow('summit-2026')).toHaveAttribute('data-status', 'live');
    expect((await programByApi('summit-2026')).status).toBe('live');
    // Live: its claim page, opened from the list, is the program's.
    const [claimPage] = await Promise.all([
      page.context().waitForEvent('page'),
      console
        .programRow('summit-2026')
        .getByRole('link', { name: /^Claim page of Summit 2026/ })
        .click(),
    ]);
    await expect(claimPage).toHaveURL(claimUrl);
    await expect(claimPage.getByRole('heading', { level: 1, name: 'Summit 2026' })).toBeVisible();
    await claimPage.close();

    // Close: Escape cancels; then confirmed.
    await editor.getByRole('button', { name: 'Close program' }).click();
    await expect(console.dialog().getByRole('heading')).toHaveText('Close Summit 2026?');
    await page.keyboard.press('Escape');
    await expect(console.dialog()).toBeHidden();
    expect((await programByApi('summit-2026')).status).toBe('live');
    await editor.getByRole('button', { name: 'Close program' }).click();
    await console.dialog().getByRole('button', { name: 'Close program' }).click();
    await expect(console.dialog()).toBeHidden();
    await expect(console.programRow('summit-2026')).toHaveAttribute('data-status', 'closed');
    expect((await programByApi('summit-2026')).status).toBe('closed');

    // The program filters of the passes and the totals list it.
    await expect(page.getByRole('region', { name: 'Passes' }).getByLabel('Program').locator('option')).toContainText([
      'All programs',
      'Wallet pass',
      'Summit 2026',
    ]);
    await expect(page.getByRole('region', { name: 'Totals' }).getByLabel('Program').locator('option', { hasText: 'Summit 2026' })).toHaveAttribute(
      'value',
      'summit-2026',
    );
    await console.check('program-closed');

    // Reopened: live again, its claim page takes claims.
    await editor.getByRole('button', { name: 'Reopen' }).click();
    await expect(console.dialog().getByRole('heading')).toHaveText('Reopen Summit 2026?');
    await console.dialog().getByRole('button', { name: 'Reopen' }).click();
    await expect(console.dialog()).toBeHidden();
    await expect(console.programRow('summit-2026')).toHaveAttribute('data-status', 'live');
    expect((await programByApi('summit-2026')).status).toBe('live');
  });

  test('an image: shown at once, uploaded as sent, refused ones said in words, removed', async ({ page }, info) => {
    await createByApi('badge-images', 'Image Badge');
    const console = new Console(page, info);
    await console.signIn();
    await console.programRow('badge-images').getByRole('button', { name: 'Edit Image Badge' }).click();
    const editor = console.editor();
    await expect(editor.getByRole('heading', { name: 'Edit Image Badge' })).toBeFocused();

    // The upload is held until the preview has shown: the picture does not wait for the service.
    const uploads: { method: string; type: string | null; bytes: number }[] = [];
    let release = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    await page.route('**/api/v1/operator/programs/badge-images/images/logo', async (route) => {
      const request = route.request();
      if (request.method() === 'PUT') {
        uploads.push({ method: request.method(), type: request.headers()['content-type'] ?? null, bytes: request.postDataBuffer()?.length ?? 0 });
        await held;
      }
      await route.continue();
    });
    const logo = png(60, 20, [20, 241, 149]);
    await editor.getByLabel('Logo image').setInputFiles({ name: 'logo.png', mimeType: 'image/png', buffer: logo });
    const preview = editor.getByRole('img', { name: 'Logo of this program' });
    await expect(preview).toHaveAttribute('src', /^data:image\/png;base64,/);
    await expect(console.picture().locator('img')).toHaveCount(1);
    await expect(console.picture().locator('img')).toHaveAttribute('src', /^data:image\/png;base64,/);
    await expect.poll(() => uploads.length).toBe(1);
    expect(uploads[0]).toEqual({ method: 'PUT', type: 'image/png', bytes: logo.length });
    release();
    // Uploaded: both show the image as the service made it.
    const served = /^\/api\/v1\/operator\/programs\/badge-images\/images\/logo\?v=\d+$/;
    await expect(preview).toHaveAttribute('src', served);
    await expect(console.picture().locator('img')).toHaveAttribute('src', served);
    await expect(preview).toHaveJSProperty('complete', true);
    expect(await preview.evaluate((img: HTMLImageElement) => img.naturalWidth)).toBeGreaterThan(0);
    await expect(editor.locator('[data-image="logo"]')).toHaveAttribute('aria-busy', 'false');
    await expect(editor.locator('[data-image="logo"]').getByRole('alert')).toHaveCount(0);
    await console.check('image-uploaded');

    // A file that is not an image is refused, in words, at its input.
    await editor.getByLabel('Icon image').setInputFiles({ name: 'icon.png', mimeType: 'image/png', buffer: Buffer.from('not a png at all') });
    await expect(editor.locator('[data-image="icon"]').getByRole('alert')).toContainText('The service could not use this image');
    await expect(editor.getByRole('img', { name: 'Icon of this program' })).toHaveCount(0);

    // Removed: gone from the row and the picture.
    await editor.getByRole('button', { name: 'Remove logo image' }).click();
    await expect(editor.getByRole('img', { name: 'Logo of this program' })).toHaveCount(0);
    await expect(console.picture().locator('img')).toHaveCount(0);
  });
});

test.describe('on a phone (375 px)', () => {
  test.use(PHONE);

  test('by keyboard: open the editor, edit a field and see it, move a row; axe-clean, no sideways scroll', async ({ page }, info) => {
    await createByApi('phone-pass', 'Phone Pass');
    const console = new Console(page, info);
    await console.signIn();
    await console.check('programs-list');

    const edit = console.programRow('phone-pass').getByRole('button', { name: 'Edit Phone Pass' });
    await edit.focus();
    await page.keyboard.press('Enter');
    const editor = console.editor();
    await expect(editor.getByRole('heading', { name: 'Edit Phone Pass' })).toBeFocused();
    await console.check('editor');

    // Tab from the heading reaches the editor's controls; the name field is typed into by keyboard.
    await editor.getByLabel('Name', { exact: true }).focus();
    await page.keyboard.press('ControlOrMeta+A');
    await page.keyboard.type('Phone Pass Gold');
    await expect(console.picture()).toContainText('Phone Pass Gold');

    // A header field, added and moved by keyboard; focus stays with the moved row.
    const add = editor.getByRole('button', { name: 'Add secondary field' });
    await add.focus();
    await page.keyboard.press('Enter');
    const row = console.fieldRow('secondary', 1);
    await expect(row.getByLabel('Label', { exact: true })).toBeFocused();
    await page.keyboard.type('Tier');
    await row.getByLabel('Value', { exact: true }).focus();
    await page.keyboard.type('Gold');
    await expect(console.picture()).toContainText('Gold');
    await row.getByRole('button', { name: 'Move up Tier' }).focus();
    await page.keyboard.press('Enter');
    await expect(console.fieldRow('secondary', 0).getByLabel('Label', { exact: true })).toHaveValue('Tier');
    await console.check('editor-edited');

    await editor.getByRole('button', { name: 'Save changes' }).focus();
    await page.keyboard.press('Enter');
    await expect(page.getByRole('status').filter({ hasText: 'Changes to Phone Pass Gold saved.' })).toBeAttached();
    expect((await programByApi('phone-pass')).name).toBe('Phone Pass Gold');

    // Closing the editor gives focus back to the button that opened it.
    await editor.getByRole('button', { name: 'Close editor' }).focus();
    await page.keyboard.press('Enter');
    await expect(console.editor()).toHaveCount(0);
    await expect(console.programRow('phone-pass').getByRole('button', { name: 'Edit Phone Pass Gold' })).toBeFocused();
  });
});
