package dev.limiter.spring.internal;

import java.security.Principal;

import org.springframework.security.core.context.ReactiveSecurityContextHolder;
import org.springframework.security.core.context.SecurityContext;
import reactor.core.publisher.Mono;

/** Spring Security's authentication in a subscriber's context (WebFlux). Loaded only with Spring Security and Reactor. */
final class ReactiveSecurityPrincipal {

    private ReactiveSecurityPrincipal() {
    }

    /** The authentication of the subscriber, empty for none or an anonymous one. */
    static Mono<Principal> ofSubscriber() {
        return ReactiveSecurityContextHolder.getContext()
            .mapNotNull(SecurityContext::getAuthentication)
            .mapNotNull(SecurityPrincipal::authenticated);
    }
}
