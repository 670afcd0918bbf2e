'use client';
// An instant in the visitor's time zone: UTC as the server renders it (and as the page hydrates,
// so both agree), then the browser's own zone.
import { useEffect, useState } from 'react';
import { localTime } from './local-time';

export function LocalTime({ iso }: { iso: string }) {
  const [text, setText] = useState(() => localTime(iso, 'UTC'));
  useEffect(() => setText(localTime(iso)), [iso]);
  return <time dateTime={iso}>{text}</time>;
}
