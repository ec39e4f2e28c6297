// Time as the code sees it: injected everywhere, so that tests move it by hand.
export type Clock = () => Date;

/** Waits this long (a timer in the app; tests give their own, which need not wait real time). */
export type Sleep = (ms: number) => Promise<void>;
