// cluster-key-slot (a dependency of ioredis) ships no types: the one function we use.
declare module 'cluster-key-slot' {
  /** The Redis Cluster slot (0..16383) of a key, honouring a `{hash tag}`. */
  export default function calculateSlot(key: string | Buffer): number;
}
