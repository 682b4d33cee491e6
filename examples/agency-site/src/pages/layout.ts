import { html, type Html } from '../html.js';

export function layout(title: string, body: Html): Html {
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title} · Desert Rose Homes</title>
<link rel="stylesheet" href="/style.css">
</head>
<body>
<header class="top"><a class="brand" href="/">Desert Rose Homes</a><span class="tagline">Off-plan and ready homes across the UAE</span></header>
<main>${body}</main>
<footer>Example agency website on the Catalogue API. Prices include the agency's terms.</footer>
</body>
</html>`;
}

/** The service's message, shown as it is (it names the field), with the request id for support. */
export function errorBox(message: string, requestId?: string): Html {
  return html`<div class="error" role="alert"><strong>${message}</strong>${requestId ? html`<small>Reference: ${requestId}</small>` : ''}</div>`;
}

export const STYLE = `
*{box-sizing:border-box}body{margin:0;font:15px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1f2430;background:#f6f4ef}
a{color:#9b3d2e}main{max-width:1120px;margin:0 auto;padding:20px}
.top{background:#1f2430;color:#fff;padding:14px 20px;display:flex;gap:16px;align-items:baseline}.brand{color:#f2c48d;font-weight:700;font-size:20px;text-decoration:none}.tagline{opacity:.75}
footer{max-width:1120px;margin:0 auto;padding:20px;color:#777;font-size:13px}
.search{display:grid;grid-template-columns:repeat(auto-fit,minmax(170px,1fr));gap:12px;background:#fff;padding:16px;border-radius:10px;box-shadow:0 1px 3px #0002}
.search fieldset{border:0;margin:0;padding:0}.search legend,.search label>span{display:block;font-size:12px;text-transform:uppercase;color:#666;margin-bottom:4px}
.search input[type=number],.search select{width:100%;padding:7px;border:1px solid #ccc;border-radius:6px}.chips label{display:inline-block;margin:0 6px 4px 0;white-space:nowrap}
button,.button{background:#9b3d2e;color:#fff;border:0;border-radius:6px;padding:9px 16px;font-size:15px;cursor:pointer;text-decoration:none;display:inline-block}
.summary{margin:18px 0 8px;color:#555}.cards{display:grid;grid-template-columns:repeat(auto-fill,minmax(250px,1fr));gap:16px;padding:0;list-style:none}
.card{background:#fff;border-radius:10px;overflow:hidden;box-shadow:0 1px 3px #0002}.card .body{padding:12px}.card h3{margin:0 0 4px;font-size:17px}.card .price{font-weight:700;color:#9b3d2e}
.photo{aspect-ratio:16/10;background:linear-gradient(135deg,#e8d5b7,#c9a27e);display:flex;align-items:flex-end;padding:8px;color:#5a3b22;font-size:12px;object-fit:cover;width:100%}
.muted{color:#777;font-size:13px}.pager{display:flex;gap:12px;align-items:center;margin:16px 0}
.facets{background:#fff;border-radius:10px;padding:12px 16px;margin-top:12px}.facets .groups{display:grid;grid-template-columns:repeat(auto-fit,minmax(200px,1fr));gap:4px 20px}.facets h4{margin:8px 0 4px}.facets p{margin:0 0 4px}.facets ul{list-style:none;margin:0 0 4px;padding:0;display:flex;flex-wrap:wrap;gap:2px 12px;font-size:13px}.facets li[aria-current]{font-weight:700}.facets .count{color:#777}.facets .clear{font-size:12px}
.error{background:#fdecea;border:1px solid #e0a39a;color:#7a1f12;padding:12px 14px;border-radius:8px;margin:12px 0}.error small{display:block;color:#976;margin-top:4px}
.gallery{display:grid;grid-template-columns:repeat(auto-fill,minmax(160px,1fr));gap:8px;margin:12px 0}
table{border-collapse:collapse;width:100%;background:#fff;border-radius:10px;overflow:hidden}th,td{padding:8px 10px;border-bottom:1px solid #eee;text-align:left}th{background:#efe9df;font-size:13px}
.facts{display:grid;grid-template-columns:repeat(auto-fit,minmax(180px,1fr));gap:8px;background:#fff;padding:14px;border-radius:10px}.facts div span{display:block;font-size:12px;color:#777}
.plan{display:flex;gap:0;border-radius:8px;overflow:hidden;margin:8px 0}.plan div{padding:10px;color:#fff;font-size:13px}.plan .s1{background:#9b3d2e}.plan .s2{background:#c9764f}.plan .s3{background:#1f2430}
.nearby{display:grid;grid-template-columns:repeat(auto-fit,minmax(250px,1fr));gap:12px}.nearby section{background:#fff;border-radius:10px;padding:10px 14px}.nearby h4{margin:4px 0}.nearby ul{margin:0;padding-left:18px}
form.apply{background:#fff;padding:18px;border-radius:10px;max-width:560px;display:grid;gap:12px}form.apply label span{display:block;font-size:13px;color:#555}form.apply input,form.apply textarea{width:100%;padding:8px;border:1px solid #ccc;border-radius:6px;font:inherit}
.offer{background:#fff;border-radius:10px;padding:18px;max-width:640px}.offer dl{display:grid;grid-template-columns:180px 1fr;gap:6px 12px}.offer dt{color:#777}
`;
