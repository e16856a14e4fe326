package dev.zluda.diff;

import java.io.PrintWriter;
import java.util.Map;

/**
 * The report as one self-contained HTML file (inline CSS and JavaScript, images as data URIs, no
 * network), well-formed XML (XHTML syntax) so that tools can parse it: the same content as {@link TextReport}, with a link and the keys {@code f}, {@code n},
 * {@code p} to go to the first, next and previous divergence, a heatmap of where the elements
 * of each diverging data buffer differ, and a section on the diverging kernels (kernel snapshots'
 * after-images, with a heatmap per diverging buffer and the command that localises the first
 * differing PTX instruction).
 */
public final class HtmlReport {
    private HtmlReport() {}

    private static final String CSS = """
            :root{--bg:#fbfbfa;--fg:#1d1f21;--mut:#6b7075;--line:#dcdfe3;--bad:#b3261e;--ok:#1e7b34;--hl:#fff4c2;--code:#f2f3f5}
            *{box-sizing:border-box}body{margin:0;font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;background:var(--bg);color:var(--fg)}
            header{position:sticky;top:0;background:#fff;border-bottom:1px solid var(--line);padding:10px 24px;z-index:2;display:flex;gap:18px;align-items:center;flex-wrap:wrap}
            h1{font-size:18px;margin:0}h2{font-size:16px;margin:28px 0 8px}main{padding:0 24px 40px;max-width:1400px}
            .verdict{font-weight:600;padding:3px 10px;border-radius:4px}.verdict.same{background:#e3f4e6;color:var(--ok)}.verdict.different{background:#fbe4e2;color:var(--bad)}
            nav a,nav button{font:inherit;margin-right:6px;padding:3px 10px;border:1px solid var(--line);border-radius:4px;background:#fff;color:var(--fg);text-decoration:none;cursor:pointer}
            nav a:hover,nav button:hover{background:var(--code)}.mut{color:var(--mut)}
            table{border-collapse:collapse;width:100%}th,td{text-align:left;vertical-align:top;padding:4px 8px;border-bottom:1px solid var(--line)}
            th{font-weight:600;background:#f5f6f7}th.num,td.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}table.narrow{width:auto;min-width:420px}
            code,.call{font:12.5px/1.4 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace}.call{background:var(--code);padding:4px 8px;border-radius:4px;display:block;white-space:pre-wrap;word-break:break-all}
            .kind{display:inline-block;font-size:12px;padding:1px 7px;border-radius:10px;background:#eceef1;white-space:nowrap}
            .k-result,.k-missing,.k-extra{background:#fbe4e2;color:var(--bad)}.k-data{background:#fff0d6;color:#8a5300}.k-argument,.k-output{background:#e6eefc;color:#1f4d9b}.k-kernel{background:#f3e5f5;color:#6a1b9a}
            .chips span{margin-right:8px}.card{background:#fff;border:1px solid var(--line);border-radius:6px;padding:12px 16px;margin:8px 0}
            #first .card{border-left:4px solid var(--bad)}tr.div{cursor:pointer}tr.div:hover{background:#f7f8fa}tr.sel{background:var(--hl)!important}
            tr.more td{background:#fcfcfd}figure{margin:8px 0;display:inline-block}figure img{border:1px solid var(--line);image-rendering:pixelated;display:block}
            figcaption{font-size:12px;color:var(--mut);max-width:520px}.legend i{display:inline-block;width:12px;height:12px;vertical-align:-2px;margin:0 3px 0 8px;border:1px solid #0002}
            .warn{color:#8a5300}[id]{scroll-margin-top:64px}
            """;

    private static final String JS = """
            (function(){
              var rows=[].slice.call(document.querySelectorAll('tr.div'));var cur=-1;
              function show(i){if(!rows.length)return;cur=Math.max(0,Math.min(rows.length-1,i));
                rows.forEach(function(r){r.classList.remove('sel')});var r=rows[cur];r.classList.add('sel');
                var m=document.getElementById(r.id+'-more');if(m)m.hidden=false;r.scrollIntoView({block:'center'});
                var c=document.getElementById('pos');if(c)c.textContent=(cur+1)+' / '+rows.length;}
              rows.forEach(function(r,i){r.addEventListener('click',function(){var m=document.getElementById(r.id+'-more');if(m)m.hidden=!m.hidden;cur=i;
                rows.forEach(function(x){x.classList.remove('sel')});r.classList.add('sel');});});
              function first(){var f=document.getElementById('first');if(f)f.scrollIntoView({block:'start'});}
              var b;if((b=document.getElementById('next')))b.onclick=function(){show(cur+1)};
              if((b=document.getElementById('prev')))b.onclick=function(){show(cur-1)};
              if((b=document.getElementById('go-first')))b.onclick=function(e){e.preventDefault();first();history.replaceState(null,'','#first')};
              document.addEventListener('keydown',function(e){if(e.target.tagName==='INPUT')return;
                if(e.key==='n'||e.key==='j')show(cur+1);else if(e.key==='p'||e.key==='k')show(cur-1);else if(e.key==='f')first();});
            })();
            """;

    /** Writes the page. */
    public static void write(DiffResult r, PrintWriter out) {
        out.println("<!DOCTYPE html>");
        out.println("<html lang=\"en\" xmlns=\"http://www.w3.org/1999/xhtml\"><head><meta charset=\"utf-8\"/>");
        out.println("<meta name=\"viewport\" content=\"width=device-width,initial-scale=1\"/>");
        out.println("<title>zluda diff: " + esc(name(r.a().path())) + " vs " + esc(name(r.b().path())) + "</title>");
        out.println("<style>" + CSS + "</style></head><body>");
        out.println("<header><h1>zluda diff</h1><span class=\"verdict " + (r.same() ? "same" : "different") + "\">" + esc(Describe.verdict(r)) + "</span>");
        out.print("<nav>");
        if (r.first() != null) {
            out.print("<a href=\"#first\" id=\"go-first\" title=\"key f\">Go to the first divergence</a>");
            out.print("<button id=\"prev\" title=\"key p\">◀ previous</button><button id=\"next\" title=\"key n\">next ▶</button>");
            out.print("<span class=\"mut\" id=\"pos\"></span>");
        }
        out.println("</nav></header><main>");

        // summary
        out.println("<h2>Captures</h2><table><tr><th></th><th>capture</th><th>program</th><th>driver</th><th>device</th><th class=\"num\">calls</th><th class=\"num\">threads</th><th>note</th></tr>");
        side(out, "A", r.a());
        side(out, "B", r.b());
        out.println("</table>");
        for (String n : r.notes()) out.println("<p class=\"note\">Note: " + esc(n) + "</p>");
        out.println("<p class=\"chips\">Diverging calls per kind: ");
        for (Map.Entry<DiffKind, Long> e : r.counts().entrySet()) {
            out.print("<span><span class=\"kind k-" + e.getKey().label() + "\">" + e.getKey().label() + "</span> " + e.getValue() + "</span>");
        }
        out.println("</p>");
        out.println("<p>Ignored (expected differences" + (r.options().strict() ? "" : "; <code>--strict</code> compares them") + "): "
                + esc(Describe.ignored(r)) + ". Compared as " + esc(Describe.tolerance(r.options())) + "."
                + (r.toleratedBuffers() > 0 ? " Within tolerance: " + r.toleratedBuffers() + " buffers." : "") + "</p>");
        for (String w : r.warnings()) out.println("<p class=\"warn\">Warning: " + esc(w) + "</p>");
        out.println("<p>Kernels: " + esc(Describe.kernels(r)) + (r.kernels().diverging().isEmpty() ? "" : " — <a href=\"#kernels\">diverging kernels</a>") + ".</p>");

        // first divergence
        DiffResult.Divergence f = r.first();
        if (f != null) {
            out.println("<h2 id=\"first\">First divergence</h2><div class=\"card\">");
            out.println("<p><span class=\"kind k-" + f.kind().label() + "\">" + f.kind().label() + "</span> <b>" + esc(f.function()) + "</b> — "
                    + esc(Describe.where(f)) + "</p>");
            detail(out, f);
            out.println("</div>");

            // list
            out.println("<h2 id=\"list\">Diverging calls (" + r.divergingCalls()
                    + (r.divergences().size() < r.divergingCalls() ? ", the first " + r.divergences().size() + " listed" : "") + ")</h2>");
            out.println("<p class=\"mut\">Click a row for both calls and every difference; keys n / p move through the list, f goes to the first divergence.</p>");
            out.println("<table><tr><th>#</th><th class=\"num\">A call</th><th class=\"num\">B call</th><th>kind</th><th>function</th><th>what differs</th></tr>");
            for (DiffResult.Divergence d : r.divergences()) {
                String id = "d" + d.number();
                String what = d.differences().isEmpty() ? "" : Describe.difference(d.differences().getFirst());
                if (d.kind() == DiffKind.EXTRA || d.kind() == DiffKind.MISSING) what = d.kind().description();
                if (d.differences().size() > 1) what += " (+" + (d.differences().size() - 1) + " more)";
                out.println("<tr class=\"div\" id=\"" + id + "\"><td class=\"num\">" + d.number() + "</td><td class=\"num\">" + callNo(d.a())
                        + "</td><td class=\"num\">" + callNo(d.b()) + "</td><td><span class=\"kind k-" + d.kind().label() + "\">" + d.kind().label()
                        + "</span></td><td><code>" + esc(d.function()) + "</code></td><td>" + esc(what) + "</td></tr>");
                out.println("<tr class=\"more\" id=\"" + id + "-more\"" + (d.number() == 1 ? "" : " hidden=\"hidden\"") + "><td></td><td colspan=\"5\">");
                detail(out, d);
                out.println("</td></tr>");
            }
            out.println("</table>");
        }

        if (!r.kernels().diverging().isEmpty()) {
            DiffResult.Kernels k = r.kernels();
            out.println("<h2 id=\"kernels\">Diverging kernels (" + k.divergingCount()
                    + (k.diverging().size() < k.divergingCount() ? ", the first " + k.diverging().size() + " listed" : "") + ")</h2>");
            for (DiffResult.KernelDivergence kd : k.diverging()) {
                out.println("<div class=\"card\" id=\"kernel-" + kd.number() + "\"><p><span class=\"kind k-kernel\">kernel</span> <b>#" + kd.number() + " <code>"
                        + esc(kd.kernel()) + "</code></b> — " + esc(Describe.kernel(kd)) + "</p>");
                if (kd.resultA() != kd.resultB()) out.println("<p>Kernel result: " + kd.resultA() + " in A, " + kd.resultB() + " in B</p>");
                for (String p : kd.parameters()) out.println("<p class=\"warn\">" + esc(p) + " (the launches were given other inputs)</p>");
                if (!kd.buffers().isEmpty()) {
                    out.println("<table><tr><th class=\"num\">buffer</th><th>allocation</th><th>parameters</th><th>how the after-images differ</th></tr>");
                    for (DiffResult.KernelBuffer b : kd.buffers()) {
                        out.println("<tr><td class=\"num\">" + b.index() + "</td><td><code>" + esc(b.buffer()) + (b.bBuffer() == null ? "" : " (B: " + esc(b.bBuffer()) + ")")
                                + "</code></td><td><code>" + esc(String.join(", ", b.params())) + "</code></td><td>" + esc(Describe.kernelBuffer(b)));
                        heatmap(out, b.data());
                        out.println("</td></tr>");
                    }
                    out.println("</table>");
                }
                if (kd.note() != null) out.println("<p class=\"warn\">" + esc(kd.note()) + "</p>");
                out.println("<p>The first PTX instruction that computes a different value: <code class=\"call\">" + esc(kd.locate()) + "</code></p></div>");
            }
        }
        if (!r.ignored().isEmpty()) {
            out.println("<h2 id=\"ignored\">Ignored differences (examples)</h2>");
            out.println("<table><tr><th>category</th><th class=\"num\">A call</th><th class=\"num\">B call</th><th>function</th><th>what</th><th>A</th><th>B</th></tr>");
            for (DiffResult.Ignored i : r.ignored()) {
                out.println("<tr><td>" + esc(i.category().label()) + "</td><td class=\"num\">" + (i.aCall() < 0 ? "" : i.aCall()) + "</td><td class=\"num\">"
                        + (i.bCall() < 0 ? "" : i.bCall()) + "</td><td><code>" + esc(i.function()) + "</code></td><td>" + esc(i.what())
                        + "</td><td><code>" + esc(i.a()) + "</code></td><td><code>" + esc(i.b()) + "</code></td></tr>");
            }
            out.println("</table>");
        }
        if (!r.threads().isEmpty()) {
            out.println("<h2>Threads</h2><table class=\"narrow\"><tr><th class=\"num\">A thread</th><th class=\"num\">B thread</th><th class=\"num\">A calls</th><th class=\"num\">B calls</th></tr>");
            for (DiffResult.ThreadPair t : r.threads()) {
                out.println("<tr><td class=\"num\">" + (t.aThread() < 0 ? "—" : t.aThread()) + "</td><td class=\"num\">" + (t.bThread() < 0 ? "—" : t.bThread())
                        + "</td><td class=\"num\">" + t.aCalls() + "</td><td class=\"num\">" + t.bCalls() + "</td></tr>");
            }
            out.println("</table>");
        }
        out.println("</main><script>//<![CDATA[\n" + JS + "//]]></script></body></html>");
        out.flush();
    }

    private static void side(PrintWriter out, String label, DiffResult.Side s) {
        out.println("<tr><td><b>" + label + "</b></td><td><code>" + esc(s.path()) + "</code></td><td>" + esc(s.program()) + "</td><td>" + esc(s.driver())
                + "</td><td>" + esc(s.device()) + "</td><td class=\"num\">" + s.calls() + "</td><td class=\"num\">" + s.threads() + "</td><td>"
                + esc(s.note() == null ? "" : s.note()) + "</td></tr>");
    }

    private static String callNo(DiffResult.CallRef c) {
        return c.present() ? Long.toString(c.call()) : "<span class=\"mut\" title=\"after call " + c.after() + "\">—</span>";
    }

    private static void detail(PrintWriter out, DiffResult.Divergence d) {
        out.println("<div><b>A</b>" + (d.a().present() ? " call " + d.a().call() + " <span class=\"mut\">thread " + d.a().thread() + "</span>"
                + "<code class=\"call\">" + esc(d.a().text()) + "</code>" : " <span class=\"mut\">no such call (after call " + d.a().after() + ")</span>") + "</div>");
        out.println("<div><b>B</b>" + (d.b().present() ? " call " + d.b().call() + " <span class=\"mut\">thread " + d.b().thread() + "</span>"
                + "<code class=\"call\">" + esc(d.b().text()) + "</code>" : " <span class=\"mut\">no such call (after call " + d.b().after() + ")</span>") + "</div>");
        boolean table = d.differences().stream().anyMatch(x -> x.kind() != DiffKind.EXTRA && x.kind() != DiffKind.MISSING);
        if (table) {
            out.println("<table style=\"margin-top:6px\"><tr><th>kind</th><th>what</th><th>A</th><th>B</th></tr>");
            for (DiffResult.Difference x : d.differences()) {
                out.println("<tr><td><span class=\"kind k-" + x.kind().label() + "\">" + x.kind().label() + "</span></td><td>" + esc(x.what())
                        + "</td><td><code>" + esc(x.a()) + "</code></td><td><code>" + esc(x.b()) + "</code></td></tr>");
                if (x.data() != null) {
                    out.println("<tr><td></td><td colspan=\"3\">" + esc(Describe.data(x.data())));
                    heatmap(out, x.data());
                    out.println("</td></tr>");
                }
            }
            out.println("</table>");
        }
    }

    private static void heatmap(PrintWriter out, DiffResult.DataDiff dd) {
        Heatmap h = dd.heatmap();
        if (h == null) return;
        int s = h.defaultScale();
        out.println("<br/><figure><img class=\"heatmap\" src=\"" + h.dataUri() + "\" width=\"" + h.width() * s + "\" height=\"" + h.height() * s
                + "\" alt=\"heatmap of " + esc(dd.buffer()) + "\"/><figcaption>Where the " + h.elements() + " " + esc(dd.elementType()) + " elements differ: "
                + h.width() + " × " + h.height() + " cells of " + h.elementsPerCell() + (h.elementsPerCell() == 1 ? " element" : " elements")
                + ", row by row from element 0." + "<span class=\"legend\"><i style=\"background:#24452c\"></i>equal<i style=\"background:#ffe100\"></i>small"
                + "<i style=\"background:#dc0000\"></i>large or NaN<i style=\"background:#111\"></i>past the end</span></figcaption></figure>");
    }

    private static String name(String path) {
        String p = path.replaceAll("/+$", "");
        return p.substring(p.lastIndexOf('/') + 1);
    }

    /** HTML-escapes text. */
    static String esc(String s) {
        if (s == null) return "";
        StringBuilder sb = new StringBuilder(s.length() + 16);
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '<' -> sb.append("&lt;");
                case '>' -> sb.append("&gt;");
                case '&' -> sb.append("&amp;");
                case '"' -> sb.append("&quot;");
                case '\'' -> sb.append("&#39;");
                default -> sb.append(c);
            }
        }
        return sb.toString();
    }
}
