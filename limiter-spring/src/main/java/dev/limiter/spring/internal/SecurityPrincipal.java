package dev.limiter.spring.internal;

import java.security.Principal;

import org.jspecify.annotations.Nullable;
import org.springframework.security.authentication.AnonymousAuthenticationToken;
import org.springframework.security.core.Authentication;
import org.springframework.security.core.context.SecurityContextHolder;
import org.springframework.util.ClassUtils;

/**
 * The authentication of Spring Security, as the principal of a call. Loaded only when Spring Security
 * is on the classpath ({@link #PRESENT}); Limiter does not need it otherwise.
 */
final class SecurityPrincipal {

    /** Whether Spring Security is on the classpath. */
    static final boolean PRESENT = ClassUtils.isPresent("org.springframework.security.core.context.SecurityContextHolder",
            SecurityPrincipal.class.getClassLoader());

    private SecurityPrincipal() {
    }

    /** The authentication of this thread, or null for none or an anonymous one. */
    static @Nullable Principal ofThisThread() {
        return authenticated(SecurityContextHolder.getContext().getAuthentication());
    }

    /** An anonymous authentication is nobody: all anonymous callers would otherwise share one key. */
    static @Nullable Principal authenticated(@Nullable Authentication authentication) {
        if (authentication == null || authentication instanceof AnonymousAuthenticationToken || !authentication.isAuthenticated()) {
            return null;
        }
        return authentication;
    }
}
