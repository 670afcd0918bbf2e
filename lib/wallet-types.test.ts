import { describe, expect, it } from 'vitest';
import { walletTypeForWallet } from './wallet-types';

describe('walletTypeForWallet', () => {
  it('names the wallet’s own design when it is one of the 13, Generic otherwise', () => {
    expect(walletTypeForWallet('Phantom')).toBe('Phantom');
    expect(walletTypeForWallet('Coinbase Wallet')).toBe('Coinbase Wallet');
    expect(walletTypeForWallet('Backpack')).toBe('Generic');
    expect(walletTypeForWallet('phantom')).toBe('Generic');
  });
});
