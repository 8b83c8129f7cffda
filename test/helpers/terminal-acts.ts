/** Anything a terminal would act on: C0 controls but LF and TAB, DEL, C1 controls, and the bidi controls. */
export const TERMINAL_ACTS =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: the controls are what it finds.
  /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/;
