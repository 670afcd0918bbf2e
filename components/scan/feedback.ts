// What the door hears and feels: a short beep made with WebAudio (no sound file to fetch) and a
// vibration where the phone has one. Browsers start audio only after a tap on the page: unlock()
// runs on the first one (choosing the program, a button), and until then the answer is silent.
let context: AudioContext | null = null;

/** Call from a tap or a key press: creates or resumes the audio context. */
export function unlockSound(): void {
  try {
    context ??= new AudioContext();
    if (context.state === 'suspended') void context.resume();
  } catch {
    context = null; // no WebAudio: the door sees the answer, silently
  }
}

/** Rising two-tone chirp for admitted; a low double buzz for refused or not checked. */
export function beep(admitted: boolean): void {
  if (context?.state !== 'running') return;
  const start = context.currentTime;
  const tones = admitted
    ? [
        { frequency: 880, at: 0, length: 0.09, type: 'sine' as const },
        { frequency: 1320, at: 0.1, length: 0.12, type: 'sine' as const },
      ]
    : [
        { frequency: 220, at: 0, length: 0.16, type: 'square' as const },
        { frequency: 220, at: 0.22, length: 0.16, type: 'square' as const },
      ];
  for (const tone of tones) {
    const oscillator = context.createOscillator();
    const gain = context.createGain();
    oscillator.type = tone.type;
    oscillator.frequency.value = tone.frequency;
    // A quick fade in and out: no click at either end.
    gain.gain.setValueAtTime(0.0001, start + tone.at);
    gain.gain.exponentialRampToValueAtTime(0.25, start + tone.at + 0.01);
    gain.gain.exponentialRampToValueAtTime(0.0001, start + tone.at + tone.length);
    oscillator.connect(gain).connect(context.destination);
    oscillator.start(start + tone.at);
    oscillator.stop(start + tone.at + tone.length + 0.02);
  }
}

export function vibrate(admitted: boolean): void {
  try {
    navigator.vibrate?.(admitted ? 80 : [180, 90, 180]);
  } catch {
    // not allowed here (no user activation yet, a desktop browser): nothing to feel
  }
}
