// A program's claim page: its name, a picture of its pass, who may claim in words, then the claim
// flow for that program, or, when it takes no claims, why and what to do instead. Read from the
// service directly (the process's services: lib/shared-services.ts), as GET /api/v1/programs/{slug}
// answers it. Unknown programs and drafts are a 404; `default` is `/`.
import type { Metadata } from 'next';
import { headers } from 'next/headers';
import { notFound, redirect } from 'next/navigation';
import { cache } from 'react';
import { LocalTime } from '@/components/claim/LocalTime';
import { ProgramClaimExperience } from '@/components/claim/ProgramClaim';
import { ProgramStatus } from '@/components/claim/ProgramStatus';
import { passColours } from '@/components/pass-picture/colours';
import { PassPicture } from '@/components/pass-picture/PassPicture';
import { PassIcon } from '@/components/ui/icons';
import { AppError } from '@/lib/errors';
import { nonceOf } from '@/lib/page-security';
import { defaultDesign } from '@/lib/programs/design';
import { type PublicProgram, publicProgram } from '@/lib/programs/public';
import { DEFAULT_PROGRAM, SLUG_PATTERN } from '@/lib/programs/schema';
import { sharedServices } from '@/lib/shared-services';
import styles from '../../page.module.css';
import own from './program.module.css';

type Params = { params: Promise<{ slug: string }> };

/** The sample holder the picture shows until a wallet is connected. */
const SAMPLE_ADDRESS = '7xKXtg2CW87d97TXJSDpbD5jBkheTqA83TZRuJosgAsU';

/** The program, read once per request (the metadata and the page both need it). */
const programOf = cache(async (slug: string): Promise<{ program: PublicProgram; now: number }> => {
  if (!SLUG_PATTERN.test(slug)) notFound();
  if (slug === DEFAULT_PROGRAM) redirect('/');
  const services = await sharedServices();
  try {
    return { program: await publicProgram(services, slug), now: services.clock.now() };
  } catch (error) {
    if (error instanceof AppError && error.code === 'program_not_found') notFound();
    throw error;
  }
});

export async function generateMetadata({ params }: Params): Promise<Metadata> {
  const { program } = await programOf((await params).slug);
  return { title: `Claim ${program.name}`, description: `${program.name}: a wallet pass for ${program.eligibility.toLowerCase()}.` };
}

export default async function ProgramClaimPage({ params }: Params) {
  const { program, now } = await programOf((await params).slug);
  const design = program.design ?? defaultDesign();
  const pass = {
    design,
    name: program.name,
    images: program.images,
    sample: { publicKey: SAMPLE_ADDRESS, serialNumber: 'SAMPLE-0001', claimedAt: new Date(now).toISOString(), walletType: 'Phantom' },
  };
  // The design's colours for the server-rendered picture, in a rule carrying the page's nonce (the
  // policy refuses style attributes); the picture sets the same colours itself once hydrated.
  const nonce = nonceOf((await headers()).get('content-security-policy'));
  const colours = Object.entries(passColours(design))
    .map(([property, value]) => `${property}:${value}`)
    .join(';');

  const intro = (
    <>
      <h1 className={styles.title}>{program.name}</h1>
      <p className={styles.lede}>Claim this pass for Apple Wallet or Google Wallet: sign one message with your wallet. No transaction, no fee.</p>
      <dl className={own.facts}>
        <div>
          <dt>Who may claim</dt>
          <dd>{program.eligibility}</dd>
        </div>
        {program.availability.kind === 'open' && program.closesAt ? (
          <div>
            <dt>Open until</dt>
            <dd>
              <LocalTime iso={program.closesAt} />
            </dd>
          </div>
        ) : null}
      </dl>
      <noscript>
        <p className={styles.noscript}>Claiming needs JavaScript: it is how this page talks to your wallet.</p>
      </noscript>
    </>
  );

  return (
    <main className={`${styles.main} ${own.passColours}`}>
      {nonce && colours ? <style nonce={nonce}>{`.${own.passColours}{${colours}}`}</style> : null}
      <div className={styles.brand}>
        <span className={styles.brandMark} aria-hidden="true">
          <PassIcon size={20} />
        </span>
        Wallet Pass
      </div>
      {program.availability.kind === 'open' ? (
        <ProgramClaimExperience intro={intro} program={program.slug} pass={pass} />
      ) : (
        <div className={own.layout}>
          <div>
            {intro}
            <div className={own.picture}>
              <PassPicture {...pass} />
            </div>
          </div>
          <ProgramStatus availability={program.availability} slug={program.slug} />
        </div>
      )}
    </main>
  );
}
