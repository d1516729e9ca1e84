/**
 * Registration of the 429 handling and the rule filters for Spring MVC and WebFlux. Nothing here is null
 * unless marked {@code @Nullable}.
 */
@NullMarked
package dev.limiter.autoconfigure.web;

import org.jspecify.annotations.NullMarked;
