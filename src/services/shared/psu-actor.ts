// Who acts on the PSU's permission dashboard (issue 39): the PSU of the session, handed to each use
// case that changes something for the PSU, so that what it records names the PSU as the actor, from
// the address of the PSU's browser and under the request's correlation id.
export interface PsuActor {
  readonly psuId: string;
  readonly address?: string | undefined;
  readonly correlationId?: string | undefined;
}
