package dev.limiter.spring;

import org.springframework.util.ClassUtils;

/** Finds the {@link CallRequest} of a call on this thread, with whichever web stack is present. */
final class CallRequests {

    /** Whether the Servlet API and Spring Web are present, so that a servlet request (and its response) can be found. */
    static final boolean SERVLET_PRESENT = ClassUtils.isPresent("jakarta.servlet.http.HttpServletRequest", null)
            && ClassUtils.isPresent("org.springframework.web.context.request.ServletRequestAttributes", null);

    private CallRequests() {
    }

    /** The servlet request this thread handles, else only Spring Security's principal, if any. */
    static CallRequest ofThisThread(ClientIpResolver clientIps) {
        return SERVLET_PRESENT ? CurrentServletRequest.get(clientIps) : outsideRequest();
    }

    /** A call outside any request: only Spring Security may know who makes it. */
    static CallRequest outsideRequest() {
        return SecurityPrincipal.PRESENT ? new CallRequest(null, SecurityPrincipal.ofThisThread(), null) : CallRequest.NONE;
    }
}
