import { html, type Html } from '../html.js';

/** A page; `head` adds to its head (the map page's stylesheet and script). */
export function layout(title: string, body: Html, head: Html = html``): Html {
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title} · Desert Rose Homes</title>
<link rel="stylesheet" href="/style.css">
<link rel="icon" href="/favicon.svg" type="image/svg+xml">
${head}</head>
<body>
<header class="top"><a class="brand" href="/">Desert Rose Homes</a><span class="tagline">Off-plan and ready homes across the UAE</span><nav class="nav" aria-label="Site"><a href="/">Search</a><a href="/map">Map</a></nav></header>
<main>${body}</main>
<footer>Example agency website on the Catalogue API. Prices include the agency's terms.</footer>
</body>
</html>`;
}

/** The service's message, shown as it is (it names the field), with the request id for support. */
export function errorBox(message: string, requestId?: string): Html {
  return html`<div class="error" role="alert"><strong>${message}</strong>${requestId ? html`<small>Reference: ${requestId}</small>` : ''}</div>`;
}

/** The site's icon: served at /favicon.svg (and /favicon.ico, which browsers ask for on their own). */
export const FAVICON = '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="6" fill="#1f2430"/><path d="M6 26V14l6-4v16zm8 0V6l6 4v16zm8 0V12l4 2v12z" fill="#f2c48d"/></svg>';

/*
 * Colours meet WCAG AA contrast (4.5:1 for text) on their backgrounds; focus is always visible; below
 * 700 px the units table becomes one card per unit (each cell labelled from data-label).
 */
export const STYLE = `
*{box-sizing:border-box}[hidden]{display:none!important}body{margin:0;font:15px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1f2430;background:#f6f4ef}
a{color:#9b3d2e}main{max-width:1120px;margin:0 auto;padding:20px}
.top{background:#1f2430;color:#fff;padding:14px 20px;display:flex;gap:16px;align-items:baseline}.brand{color:#f2c48d;font-weight:700;font-size:20px;text-decoration:none}.tagline{color:#d9dce3}
footer{max-width:1120px;margin:0 auto;padding:20px;color:#555;font-size:13px}
.search{display:grid;grid-template-columns:repeat(auto-fit,minmax(170px,1fr));gap:12px;background:#fff;padding:16px;border-radius:10px;box-shadow:0 1px 3px #0002}
.search fieldset{border:0;margin:0;padding:0}.search legend,.search label>span{display:block;font-size:12px;text-transform:uppercase;color:#555;margin-bottom:4px}
.search input[type=number],.search select{width:100%;padding:7px;border:1px solid #ccc;border-radius:6px}.chips label{display:inline-block;margin:0 6px 4px 0}
button,.button{background:#9b3d2e;color:#fff;border:0;border-radius:6px;padding:9px 16px;font-size:15px;cursor:pointer;text-decoration:none;display:inline-block}
.summary{margin:18px 0 8px;color:#555}.cards{display:grid;grid-template-columns:repeat(auto-fill,minmax(250px,1fr));gap:16px;padding:0;list-style:none}
.card{background:#fff;border-radius:10px;overflow:hidden;box-shadow:0 1px 3px #0002}.card .body{padding:12px}.card h3{margin:0 0 4px;font-size:17px}.card .price{font-weight:700;color:#9b3d2e}
.photo{aspect-ratio:16/10;background:linear-gradient(135deg,#e8d5b7,#c9a27e);display:flex;align-items:flex-end;padding:8px;color:#5a3b22;font-size:12px;object-fit:cover;width:100%}
.muted{color:#5b5b5b;font-size:13px}.pager{display:flex;gap:12px;align-items:center;margin:16px 0}
.facets{background:#fff;border-radius:10px;padding:12px 16px;margin-top:12px}.facets .groups{display:grid;grid-template-columns:repeat(auto-fit,minmax(200px,1fr));gap:4px 20px}.facets h2{font-size:17px;margin:0 0 4px}.facets h3{font-size:15px;margin:8px 0 4px}.facets p{margin:0 0 4px}.facets ul{list-style:none;margin:0 0 4px;padding:0;display:flex;flex-wrap:wrap;gap:2px 12px;font-size:13px}.facets li[aria-current]{font-weight:700}.facets .count{color:#5b5b5b}.facets .clear{font-size:12px}
.error{background:#fdecea;border:1px solid #e0a39a;color:#7a1f12;padding:12px 14px;border-radius:8px;margin:12px 0}.error small{display:block;color:#6b4a3a;margin-top:4px}
.gallery{display:grid;grid-template-columns:repeat(auto-fill,minmax(160px,1fr));gap:8px;margin:12px 0}
table{border-collapse:collapse;width:100%;background:#fff;border-radius:10px;overflow:hidden}th,td{padding:8px 10px;border-bottom:1px solid #eee;text-align:left}th{background:#efe9df;font-size:13px}
.facts{display:grid;grid-template-columns:repeat(auto-fit,minmax(180px,1fr));gap:8px;background:#fff;padding:14px;border-radius:10px}.facts div span{display:block;font-size:12px;color:#5b5b5b}
.plan{display:flex;gap:0;border-radius:8px;overflow:hidden;margin:8px 0}.plan div{min-width:0;padding:8px 4px;color:#fff;font-size:13px;font-weight:600;text-align:center;white-space:nowrap;overflow:hidden}.plan div+div{border-left:2px solid #f6f4ef}
.plan .s1,.plan-stages .s1{background:#9b3d2e}.plan .s2,.plan-stages .s2{background:#a5532f}.plan .s3,.plan-stages .s3{background:#1f2430}
.plan-stages{list-style:none;margin:0 0 8px;padding:0;display:flex;flex-wrap:wrap;gap:6px 28px}.plan-stages li{display:flex;gap:8px;align-items:baseline}.plan-stages .swatch{flex:none;width:12px;height:12px;border-radius:3px;position:relative;top:1px}
.nearby{display:grid;grid-template-columns:repeat(auto-fit,minmax(250px,1fr));gap:12px}.nearby section{background:#fff;border-radius:10px;padding:10px 14px}.nearby h3{font-size:16px;margin:4px 0}.nearby ul{margin:0;padding-left:18px}
form.apply{background:#fff;padding:18px;border-radius:10px;max-width:560px;display:grid;gap:12px}form.apply label span{display:block;font-size:13px;color:#444}form.apply input,form.apply textarea{width:100%;padding:8px;border:1px solid #ccc;border-radius:6px;font:inherit}
.offer{background:#fff;border-radius:10px;padding:18px;max-width:640px}.offer dl{display:grid;grid-template-columns:180px 1fr;gap:6px 12px}.offer dt{color:#5b5b5b}
a:focus-visible,button:focus-visible,input:focus-visible,select:focus-visible,textarea:focus-visible{outline:3px solid #1d5fd1;outline-offset:2px}
.visually-hidden{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}
img.photo{display:block;height:auto;padding:0}.top{flex-wrap:wrap}
.field-error{color:#a3200f;font-size:13px;margin:4px 0 0}form.apply input[aria-invalid=true],form.apply textarea[aria-invalid=true],.search input[aria-invalid=true],.search select[aria-invalid=true]{border:2px solid #a3200f}
.error ul{margin:6px 0 0;padding-left:20px}
.nav{margin-left:auto;display:flex;gap:16px}.nav a{color:#f2c48d;font-weight:600}
details.filters{margin:0 0 12px}details.filters>summary{cursor:pointer;font-weight:600;padding:6px 0;color:#9b3d2e}
.notice{background:#fff7e6;border:1px solid #e5c98f;padding:10px 14px;border-radius:8px}
.map-layout{display:grid;gap:16px}.map-tools{display:flex;flex-wrap:wrap;gap:8px;align-items:center;margin:0 0 8px;min-height:40px}
button.secondary{background:#fff;color:#9b3d2e;box-shadow:inset 0 0 0 1px #9b3d2e}button:disabled{opacity:.6;cursor:not-allowed}.map-hint{font-size:13px;color:#444}
.map-frame{position:relative}.map{height:min(62vh,560px);min-height:340px;border-radius:10px;box-shadow:0 1px 3px #0002;z-index:0}.leaflet-container.map{background:#cddfe8;font:inherit}
.map.drawing,.map.drawing .leaflet-interactive{cursor:crosshair}.map.drawing .marker *{pointer-events:none}
.search-area{position:absolute;top:12px;left:50%;transform:translateX(-50%);z-index:1000;border-radius:20px;box-shadow:0 2px 8px #0005;white-space:nowrap}
.map-results{background:#fff;border-radius:10px;padding:4px 16px 8px;box-shadow:0 1px 3px #0002}.map-list h2{font-size:16px;margin:10px 0 6px}
.map-items{list-style:none;margin:0;padding:0}.map-items li{display:grid;grid-template-columns:minmax(0,1fr) auto;gap:0 10px;padding:8px 0;border-top:1px solid #eee}
.map-items a{font-weight:600}.map-items .muted{grid-column:1}.map-items .price{grid-column:2;grid-row:1/span 2;align-self:center;font-weight:700;color:#9b3d2e;white-space:nowrap;font-size:14px}
.map-items .matched .price{grid-column:1;grid-row:3;white-space:normal}.map-items .units{grid-column:2;grid-row:3;align-self:center;color:#5b5b5b;font-size:13px;white-space:nowrap}
@media (min-width:900px){.map-layout{grid-template-columns:minmax(0,1fr) 340px}.map-results{margin-top:48px;max-height:560px;overflow:auto}}
.leaflet-div-icon.marker,.leaflet-div-icon.place-label,.leaflet-div-icon.city-label{background:none;border:0}
.marker .cluster,.marker .pin,.place-label span,.city-label span{position:absolute;transform:translate(-50%,-50%);white-space:nowrap}
.marker .cluster{display:flex;flex-direction:column;align-items:center;padding:0;background:none;border-radius:0;color:#1f2430;font:inherit;cursor:pointer}
.cluster strong{display:flex;align-items:center;justify-content:center;width:38px;height:38px;border-radius:50%;background:#9b3d2e;color:#fff;font-size:15px;border:3px solid #fff;box-shadow:0 1px 4px #0006}
.cluster.size-m strong{width:46px;height:46px;font-size:16px}.cluster.size-l strong{width:54px;height:54px;font-size:17px}
.cluster span:not(.visually-hidden){margin-top:-6px;background:#fff;border-radius:9px;padding:0 6px;font-size:11px;font-weight:600;box-shadow:0 1px 3px #0004}
.leaflet-container a.pin{display:block;background:#fff;color:#1f2430;border:2px solid #9b3d2e;border-radius:14px;padding:2px 8px;font-size:12px;font-weight:700;text-decoration:none;box-shadow:0 1px 3px #0005}
.leaflet-container a.pin:hover,.leaflet-container a.pin:focus-visible{background:#1f2430;color:#fff}.marker .cluster:hover strong{background:#7d2f23}
.place-label span{font-size:11px;font-weight:700;color:#3e4a37;text-transform:uppercase;letter-spacing:.05em}.city-label span{transform:translate(-50%,-260%);font-size:15px;font-weight:700;color:#1f2430;text-transform:uppercase;letter-spacing:.14em}
.map.zoomed-out .place-label,.map:not(.zoomed-out) .city-label{display:none}.place-label .covered,.city-label .covered{visibility:hidden}.map .leaflet-control-attribution{font-size:11px}
${Array.from({ length: 20 }, (_, i) => `.plan .w${(i + 1) * 5}{flex:${(i + 1) * 5}}`).join('')}
@media (max-width:700px){main{padding:12px}.top{padding:12px}.offer dl{grid-template-columns:1fr}
table.units,table.units tbody,table.units tr,table.units td{display:block;width:100%}table.units{background:none}table.units thead{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0)}
table.units tr{background:#fff;border-radius:10px;margin:0 0 10px;padding:8px 12px;box-shadow:0 1px 3px #0002}table.units td{border:0;padding:3px 0;display:flex;justify-content:space-between;gap:12px}
table.units td[data-label]::before{content:attr(data-label);color:#5b5b5b;font-size:13px}table.units td:last-child{justify-content:flex-end}
.plan div{font-size:12px}.plan-stages{flex-direction:column}}
`;
