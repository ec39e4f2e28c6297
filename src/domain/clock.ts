// Time as the code sees it: injected everywhere, so that tests move it by hand.
export type Clock = () => Date;
