// Buttons and button-styled links. One look per role: primary (the next step), secondary, quiet
// (a way back), and the two wallet-brand buttons. Each is a native <button> or <a>, so keyboard,
// focus and screen readers work without extra code.
import type { AnchorHTMLAttributes, ButtonHTMLAttributes } from 'react';
import styles from './ui.module.css';

export type ButtonVariant = 'primary' | 'secondary' | 'quiet' | 'apple' | 'google';

const classes = (variant: ButtonVariant, extra?: string) => [styles.button, styles[variant], extra].filter(Boolean).join(' ');

export function Button({ variant = 'primary', className, type = 'button', ...rest }: ButtonHTMLAttributes<HTMLButtonElement> & { variant?: ButtonVariant }) {
  return <button type={type} className={classes(variant, className)} {...rest} />;
}

export function LinkButton({ variant = 'primary', className, ...rest }: AnchorHTMLAttributes<HTMLAnchorElement> & { variant?: ButtonVariant }) {
  return <a className={classes(variant, className)} {...rest} />;
}

export function Spinner({ label }: { label?: string }) {
  // A labelled spinner is a status; an unlabelled one (inside a labelled button) is decoration.
  const semantics = label ? { role: 'status', 'aria-label': label } : { 'aria-hidden': true };
  return <span className={styles.spinner} {...semantics} />;
}
