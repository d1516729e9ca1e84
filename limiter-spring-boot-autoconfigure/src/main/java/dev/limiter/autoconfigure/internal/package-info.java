/**
 * Not API: types public only so that other Limiter modules and packages can use them, such as the
 * {@code limiters} endpoint reading what the definitions say. They may change in any release.
 */
@NullMarked
package dev.limiter.autoconfigure.internal;

import org.jspecify.annotations.NullMarked;
