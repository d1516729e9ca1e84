/**
 * Not API: for Limiter's outgoing-call integration only, may change in any release. The routes that
 * match outgoing requests to a limiter and a key, the holds an upstream asks for (in Redis, or in the
 * process with the memory backend), and the steps every client's interceptor takes: wait out a hold,
 * take a permit (waiting up to max-wait), and learn a new hold from the answer. Nothing here is null
 * unless marked {@code @Nullable}.
 */
@NullMarked
package dev.limiter.outgoing.internal;

import org.jspecify.annotations.NullMarked;
