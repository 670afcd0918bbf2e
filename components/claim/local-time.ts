// An instant as a visitor reads it: "on Tuesday 1 December 2026 at 10:00 CET", in their own time
// zone in the browser (the server does not know it, so it writes UTC until the page hydrates).

export function localTime(iso: string, timeZone?: string): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  const day = new Intl.DateTimeFormat('en-GB', { weekday: 'long', day: 'numeric', month: 'long', year: 'numeric', timeZone }).format(date);
  const time = new Intl.DateTimeFormat('en-GB', { hour: '2-digit', minute: '2-digit', timeZoneName: 'short', timeZone }).format(date);
  return `on ${day} at ${time}`;
}
