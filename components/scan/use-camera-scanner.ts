'use client';
// The camera, read continuously: the back camera's stream in a <video>, a frame read every
// READ_INTERVAL_MS by the frame reader (./barcode-reader.ts), and each new code handed to
// `onCode` (awaited: no frame is read while a check-in is in flight). The same code is not
// handed on again while it stays in view (./repeat-guard.ts). The camera is released while the
// page is hidden (the phone locked, another app) and taken again when it comes back.
import { type RefObject, useCallback, useEffect, useRef, useState } from 'react';
import { createFrameReader, type FrameReader } from './barcode-reader';
import { createRepeatGuard } from './repeat-guard';

export type CameraProblem = 'denied' | 'no-camera' | 'unsupported' | 'reader-failed' | 'failed';

export type CameraState =
  | { kind: 'starting' }
  | { kind: 'loading-reader' }
  | { kind: 'scanning'; reader: FrameReader['kind'] }
  | { kind: 'paused' }
  | { kind: 'failed'; problem: CameraProblem };

/** Between two reads: about seven frames a second, light on a phone's battery and a slow CPU. */
const READ_INTERVAL_MS = 140;

export type CameraScanner = {
  state: CameraState;
  video: RefObject<HTMLVideoElement | null>;
  /** Asks for the camera again (after a refusal or a failure). */
  retry(): void;
};

function problemOf(error: unknown): CameraProblem {
  const name = (error as { name?: string } | null)?.name;
  if (name === 'NotAllowedError' || name === 'SecurityError') return 'denied';
  if (name === 'NotFoundError' || name === 'OverconstrainedError' || name === 'NotReadableError') return 'no-camera';
  return 'failed';
}

function usePageVisible(): boolean {
  const [visible, setVisible] = useState(true);
  useEffect(() => {
    const changed = () => setVisible(document.visibilityState !== 'hidden');
    changed();
    document.addEventListener('visibilitychange', changed);
    return () => document.removeEventListener('visibilitychange', changed);
  }, []);
  return visible;
}

export function useCameraScanner(onCode: (code: string) => Promise<void>): CameraScanner {
  const video = useRef<HTMLVideoElement>(null);
  const [state, setState] = useState<CameraState>({ kind: 'starting' });
  const [attempt, setAttempt] = useState(0);
  const visible = usePageVisible();
  const handler = useRef(onCode);
  handler.current = onCode;
  const guard = useRef(createRepeatGuard());
  // Made once for the page: the WebAssembly reader is compiled once, whatever the camera does.
  const reader = useRef<Promise<FrameReader> | null>(null);

  // biome-ignore lint/correctness/useExhaustiveDependencies: attempt is the retry trigger
  useEffect(() => {
    if (!visible) {
      setState({ kind: 'paused' });
      return;
    }
    let stopped = false;
    let stream: MediaStream | null = null;
    let timer: ReturnType<typeof setTimeout> | undefined;

    async function start() {
      setState({ kind: 'starting' });
      if (!navigator.mediaDevices?.getUserMedia) {
        setState({ kind: 'failed', problem: 'unsupported' });
        return;
      }
      try {
        stream = await navigator.mediaDevices.getUserMedia({
          audio: false,
          video: { facingMode: { ideal: 'environment' }, width: { ideal: 1280 }, height: { ideal: 720 } },
        });
      } catch (error) {
        if (!stopped) setState({ kind: 'failed', problem: problemOf(error) });
        return;
      }
      if (stopped) return release();
      const element = video.current;
      if (!element) return release();
      element.srcObject = stream;
      try {
        await element.play();
      } catch {
        // Autoplay of a muted inline video is allowed everywhere; a refusal still leaves frames to read.
      }
      let frameReader: FrameReader;
      try {
        if (!reader.current) {
          setState({ kind: 'loading-reader' });
          reader.current = createFrameReader();
        }
        frameReader = await reader.current;
      } catch {
        reader.current = null;
        if (!stopped) setState({ kind: 'failed', problem: 'reader-failed' });
        return release();
      }
      if (stopped) return release();
      setState({ kind: 'scanning', reader: frameReader.kind });
      const read = async () => {
        if (stopped) return;
        try {
          if (element.readyState >= HTMLMediaElement.HAVE_CURRENT_DATA) {
            const code = await frameReader.read(element);
            if (code && !stopped && guard.current.accept(code)) await handler.current(code);
          }
        } catch {
          // One frame that could not be read: the next one is.
        }
        if (!stopped) timer = setTimeout(read, READ_INTERVAL_MS);
      };
      void read();
    }

    function release() {
      for (const track of stream?.getTracks() ?? []) track.stop();
      stream = null;
      if (video.current) video.current.srcObject = null;
    }

    void start();
    return () => {
      stopped = true;
      clearTimeout(timer);
      release();
    };
  }, [visible, attempt]);

  const retry = useCallback(() => setAttempt((n) => n + 1), []);
  return { state, video, retry };
}
