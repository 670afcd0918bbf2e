'use client';
// A program's claim flow (/p/<slug>): the claim page's flow for that program, with the program's
// pass drawn beside it, filled in for the wallet once one is connected.
import type { ReactNode } from 'react';
import { PassPicture, type PassPictureProps } from '@/components/pass-picture/PassPicture';
import { walletTypeForWallet } from '@/lib/wallet-types';
import { ClaimExperience } from './ClaimCard';
import type { ClaimState } from './claim-state';

type Pass = Pick<PassPictureProps, 'design' | 'name' | 'images' | 'sample'>;

export function ProgramClaimExperience({ intro, program, pass }: { intro: ReactNode; program: string; pass: Pass }) {
  return <ClaimExperience intro={intro} program={program} preview={(state) => <PassPicture {...pass} sample={sampleFor(state, pass.sample)} />} />;
}

/** The connected wallet's address and type on the pass; the sample's before one is connected. */
function sampleFor(state: ClaimState, sample: Pass['sample']): Pass['sample'] {
  const account = 'account' in state ? state.account : null;
  return account ? { ...sample, publicKey: account.publicKey, walletType: walletTypeForWallet(account.wallet.name) } : sample;
}
