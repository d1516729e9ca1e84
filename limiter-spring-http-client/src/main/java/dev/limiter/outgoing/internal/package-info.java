/**
 * Not API: for Limiter's outgoing-call integration only, may change in any release. The routes that
 * match outgoing requests to a limiter and a key, the holds an upstream asks for (in Redis, read by each
 * decision's own script, or in the process with the memory backend), and the steps every client's
 * interceptor takes: take a permit unless the key is held (waiting up to max-wait), and learn a new hold
 * from the answer. Nothing here is null unless marked {@code @Nullable}.
 */
@NullMarked
package dev.limiter.outgoing.internal;

import org.jspecify.annotations.NullMarked;
