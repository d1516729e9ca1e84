package dev.limiter.sample;

import java.util.List;
import java.util.Map;

import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * The public menu. Nothing here says it is limited: a rule in application.yml ({@code limiter.rules})
 * limits GET /api/menu per client address, so operators can limit an endpoint without touching its code.
 */
@RestController
@RequestMapping("/api")
public class MenuController {

    @GetMapping("/menu")
    public Map<String, List<String>> menu() {
        return Map.of("coffee", List.of("espresso", "filter", "cortado"), "beans", List.of("ethiopia", "colombia"));
    }
}
