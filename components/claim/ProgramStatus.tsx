// A program's page when it takes no claims: not open yet (and when it opens, in the visitor's time
// zone), closed, or sold out, each with its way forward. In the claim card's place and shape, with
// the same data-state the end-to-end tests read.
import { LinkButton } from '@/components/ui/Button';
import { AlertIcon, ClockIcon } from '@/components/ui/icons';
import type { Availability } from '@/lib/programs/public';
import styles from './claim.module.css';
import { LocalTime } from './LocalTime';
import { Badge, Panel } from './Panel';

export function ProgramStatus({ availability, slug }: { availability: Exclude<Availability, { kind: 'open' }>; slug: string }) {
  return (
    <section className={styles.card} aria-labelledby="claim-state-title" data-state={availability.kind}>
      <div className={styles.stage}>
        {availability.kind === 'not-open' ? (
          <Panel
            visual={
              <Badge tone="accent">
                <ClockIcon size={30} />
              </Badge>
            }
            title="Not open yet"
            actions={<LinkButton href={`/p/${slug}`}>Check again</LinkButton>}
          >
            Claims open <LocalTime iso={availability.opensAt} />. Come back then to claim your pass.
          </Panel>
        ) : (
          <Panel
            visual={
              <Badge tone="warning">
                <AlertIcon size={30} />
              </Badge>
            }
            title={availability.kind === 'sold-out' ? 'Sold out' : 'Claims are closed'}
            actions={<LinkButton href="/">See the main pass</LinkButton>}
          >
            {availability.kind === 'sold-out'
              ? 'Every pass of this program has been claimed. Passes already claimed keep working.'
              : 'This pass is no longer issued. Passes already claimed keep working.'}
          </Panel>
        )}
      </div>
    </section>
  );
}
