// A Wallet Standard wallet for the browser under test. It registers itself in the page through the
// `wallet-standard:register-wallet` event, as a browser extension does, and forwards every request
// to the test, which holds the key (tweetnacl, via test/support/wallet.ts) and decides how the
// "person" answers: approve, decline, or wait until the test says so.

import type { Page } from '@playwright/test';
import { createSignInMessageText, type SolanaSignInInputWithRequiredFields } from '@solana/wallet-standard-util';
import nacl from 'tweetnacl';
import { TestWallet } from '../../test/support/wallet';

export type WalletOptions = {
  /** The wallet's name, as its extension would report it (one of the 13 walletTypes, or not). */
  name: string;
  /** Offer `solana:signIn` (Sign In With Solana), or only `solana:signMessage`. */
  signIn: boolean;
};

type Answer = 'approve' | 'decline' | Promise<'approve' | 'decline'>;
type RequestKind = 'connect' | 'signMessage' | 'signIn';

/** What the page asked the wallet, in order: the tests assert the method (signIn or signMessage). */
export type WalletRequest = { kind: RequestKind; at: number };

export class E2EWallet {
  readonly keys = new TestWallet();
  readonly requests: WalletRequest[] = [];
  private readonly answers: Record<RequestKind, Answer[]> = { connect: [], signMessage: [], signIn: [] };
  private waiting: { kind: RequestKind; notify: () => void }[] = [];

  constructor(readonly options: WalletOptions) {}

  get address(): string {
    return this.keys.publicKey;
  }

  /** Registers the wallet in every page of this `page`'s lifetime (before any page script runs). */
  async install(page: Page): Promise<void> {
    await page.exposeFunction('__e2eWalletRequest', (kind: RequestKind, payload: unknown) => this.handle(kind, payload));
    await page.addInitScript(registerWalletInPage, {
      name: this.options.name,
      signIn: this.options.signIn,
      address: this.address,
      publicKey: Array.from(this.keys.keyPair.publicKey),
      icon: walletIcon(this.options.name),
    });
  }

  /** The next request of this kind gets this answer (requests without one are approved). */
  answerNext(kind: RequestKind, answer: Answer): void {
    this.answers[kind].push(answer);
  }

  /** Holds the next request of this kind until `release` is called; resolves once it has arrived. */
  holdNext(kind: RequestKind): { arrived: Promise<void>; release: (answer?: 'approve' | 'decline') => void } {
    let release!: (answer: 'approve' | 'decline') => void;
    this.answerNext(kind, new Promise((resolve) => (release = resolve)));
    const arrived = new Promise<void>((notify) => this.waiting.push({ kind, notify }));
    return { arrived, release: (answer = 'approve') => release(answer) };
  }

  /** The wallet ends the connection from its side (the person locked it or revoked the site). */
  async disconnectFromWallet(page: Page): Promise<void> {
    await page.evaluate(() => (window as unknown as { __e2eWallet: { disconnect(): void } }).__e2eWallet.disconnect());
  }

  private async handle(kind: RequestKind, payload: unknown): Promise<unknown> {
    this.requests.push({ kind, at: Date.now() });
    const waiter = this.waiting.find((w) => w.kind === kind);
    if (waiter) {
      this.waiting = this.waiting.filter((w) => w !== waiter);
      waiter.notify();
    }
    const answer = await (this.answers[kind].shift() ?? 'approve');
    if (answer === 'decline') return { declined: true };
    if (kind === 'connect') return { ok: true };
    if (kind === 'signMessage') {
      const message = Uint8Array.from(payload as number[]);
      return { signature: Array.from(this.sign(message)) };
    }
    // signIn: build the text from the fields, as a wallet does, filling in the address if missing.
    const input = { ...(payload as Record<string, string>), address: (payload as { address?: string }).address ?? this.address };
    const text = createSignInMessageText(input as SolanaSignInInputWithRequiredFields);
    const message = new TextEncoder().encode(text);
    return { signedMessage: Array.from(message), signature: Array.from(this.sign(message)) };
  }

  private sign(message: Uint8Array): Uint8Array {
    return nacl.sign.detached(message, this.keys.keyPair.secretKey);
  }
}

/** A small SVG data: URI icon (the Wallet Standard requires a data: URI). */
function walletIcon(name: string): string {
  const letter = name.trim().charAt(0).toUpperCase() || 'W';
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 64 64"><rect width="64" height="64" rx="16" fill="#1f7a5c"/><text x="32" y="43" font-family="Arial, sans-serif" font-size="30" font-weight="700" fill="#fff" text-anchor="middle">${letter}</text></svg>`;
  return `data:image/svg+xml;base64,${Buffer.from(svg).toString('base64')}`;
}

type InPageConfig = { name: string; signIn: boolean; address: string; publicKey: number[]; icon: string };

/**
 * Runs inside the page, before its scripts (Playwright serialises this function: no imports or
 * closures). A minimal Wallet Standard wallet with the features @solana/wallet-adapter-react needs.
 */
function registerWalletInPage(config: InPageConfig): void {
  type Bridge = (kind: string, payload: unknown) => Promise<Record<string, unknown>>;
  const ask = (window as unknown as { __e2eWalletRequest: Bridge }).__e2eWalletRequest;
  const declined = () => Object.assign(new Error('User rejected the request.'), { code: 4001 });
  const chains = ['solana:mainnet', 'solana:devnet', 'solana:testnet'] as const;
  const account = Object.freeze({
    address: config.address,
    publicKey: new Uint8Array(config.publicKey),
    chains,
    features: ['solana:signMessage', 'solana:signTransaction', ...(config.signIn ? ['solana:signIn'] : [])],
    label: 'E2E account',
  });
  let accounts: (typeof account)[] = [];
  const listeners: ((properties: { accounts: typeof accounts }) => void)[] = [];
  const changed = () => {
    for (const listener of listeners) listener({ accounts });
  };

  const features: Record<string, unknown> = {
    'standard:connect': {
      version: '1.0.0',
      connect: async (input?: { silent?: boolean }) => {
        if (input?.silent || accounts.length) return { accounts };
        const answer = await ask('connect', null);
        if (answer.declined) throw declined();
        accounts = [account];
        changed();
        return { accounts };
      },
    },
    'standard:disconnect': {
      version: '1.0.0',
      disconnect: async () => {
        accounts = [];
        changed();
      },
    },
    'standard:events': {
      version: '1.0.0',
      on: (_event: 'change', listener: (properties: { accounts: typeof accounts }) => void) => {
        listeners.push(listener);
        return () => listeners.splice(listeners.indexOf(listener), 1);
      },
    },
    'solana:signTransaction': {
      version: '1.0.0',
      supportedTransactionVersions: ['legacy', 0],
      signTransaction: async () => {
        throw new Error('The end-to-end wallet signs no transactions.');
      },
    },
    'solana:signMessage': {
      version: '1.0.0',
      signMessage: async (...inputs: { message: Uint8Array }[]) =>
        Promise.all(
          inputs.map(async ({ message }) => {
            const answer = await ask('signMessage', Array.from(message));
            if (answer.declined) throw declined();
            return { signedMessage: message, signature: new Uint8Array(answer.signature as number[]) };
          }),
        ),
    },
  };
  if (config.signIn) {
    features['solana:signIn'] = {
      version: '1.0.0',
      signIn: async (...inputs: Record<string, unknown>[]) =>
        Promise.all(
          inputs.map(async (input) => {
            const answer = await ask('signIn', input);
            if (answer.declined) throw declined();
            accounts = [account];
            return {
              account,
              signedMessage: new Uint8Array(answer.signedMessage as number[]),
              signature: new Uint8Array(answer.signature as number[]),
              signatureType: 'ed25519',
            };
          }),
        ),
    };
  }

  const wallet = {
    version: '1.0.0',
    name: config.name,
    icon: config.icon,
    chains,
    features,
    get accounts() {
      return accounts;
    },
  };
  (window as unknown as { __e2eWallet: { disconnect(): void } }).__e2eWallet = {
    disconnect() {
      accounts = [];
      changed();
    },
  };

  // The Wallet Standard handshake: announce the wallet now, and again when an app says it is ready.
  const register = ({ register }: { register: (w: typeof wallet) => void }) => register(wallet);
  window.dispatchEvent(new CustomEvent('wallet-standard:register-wallet', { detail: register }));
  window.addEventListener('wallet-standard:app-ready', (event) => register((event as CustomEvent).detail));
}
