package openapidoc

import (
	"encoding/json"
	"html"
	"net/http"
	"strings"
)

// ContentSecurityPolicy keeps the reference page self-contained: it loads nothing from
// elsewhere and talks only to the service that serves it.
const ContentSecurityPolicy = "default-src 'self'; script-src 'unsafe-inline'; style-src 'unsafe-inline'"

// Page is the interactive reference of the OpenAPI document served at specPath: a page with no
// outside assets (the services work without outside network) that reads the document, shows
// every operation with its parameters, schemas and responses, and sends a request from a form
// with the credentials the document's security schemes name.
func Page(title, specPath string) []byte {
	spec, _ := json.Marshal(specPath)
	r := strings.NewReplacer("{{TITLE}}", html.EscapeString(title), "{{SPEC_HREF}}", html.EscapeString(specPath),
		"{{SPEC_JSON}}", string(spec))
	return []byte(r.Replace(pageHTML))
}

// ServePage writes page with its Content-Security-Policy.
func ServePage(w http.ResponseWriter, page []byte) {
	w.Header().Set("Content-Security-Policy", ContentSecurityPolicy)
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	_, _ = w.Write(page)
}

// ServeJSON writes the document.
func ServeJSON(w http.ResponseWriter, doc []byte) {
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(doc)
}

const pageHTML = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>{{TITLE}}</title>
<style>
body{font-family:sans-serif;max-width:75em;margin:2em auto;padding:0 1em}
details{border:1px solid #ccc;border-radius:4px;margin:.5em 0;padding:.3em .8em}
summary{cursor:pointer}.m{display:inline-block;width:4.5em;font-weight:bold}
pre,textarea{background:#f6f6f6;padding:.5em;font-size:.85em;overflow:auto}textarea{width:100%;height:10em}
label{display:block;margin:.2em 0}input{min-width:20em}.tag{color:#666;margin:1.2em 0 .2em}
</style></head><body>
<h1 id="title">{{TITLE}}</h1>
<p id="desc"></p>
<p>The OpenAPI document is <a href="{{SPEC_HREF}}"><code>{{SPEC_HREF}}</code></a>.
Open an operation to see its parameters, schemas and responses, and send a request to this service.</p>
<div id="creds"></div>
<div id="ops">Loading…</div>
<script>
const specPath={{SPEC_JSON}};
function resolve(doc,s){while(s&&s.$ref){const p=s.$ref.replace(/^#\//,"").split("/");s=p.reduce((o,k)=>o&&o[k],doc)}return s}
function example(doc,s,depth){
  s=resolve(doc,s);if(!s||depth>6)return null;
  if(s.example!==undefined)return s.example;
  if(s.enum)return s.enum[0];
  const t=Array.isArray(s.type)?s.type[0]:s.type;
  if(t==="object"){const o={};for(const[k,v]of Object.entries(s.properties||{}))if(!s.required||s.required.includes(k))o[k]=example(doc,v,depth+1);return o}
  if(t==="array")return[example(doc,s.items,depth+1)];
  if(t==="integer"||t==="number")return s.minimum||0;
  if(t==="boolean")return false;
  if(s.pattern&&s.pattern.indexOf("{40}")>0)return"0x"+"0".repeat(40);
  if(s.pattern&&s.pattern.indexOf("{64}")>0)return"0x"+"0".repeat(64);
  if(s.pattern&&s.pattern.indexOf("[0-9]{1,78}")>0)return"0";
  return"";
}
function el(tag,text){const e=document.createElement(tag);if(text!==undefined)e.textContent=text;return e}
function input(label,type){const l=el("label",label+" "),i=el("input");i.type=type||"text";i.autocomplete="off";l.append(i);return[l,i]}
fetch(specPath).then(r=>r.json()).then(doc=>{
  document.getElementById("title").textContent=doc.info.title;
  document.getElementById("desc").textContent=doc.info.description||"";
  const creds={},box=document.getElementById("creds");
  for(const[name,sc]of Object.entries((doc.components||{}).securitySchemes||{})){
    const label=sc.type==="http"?"Authorization: Bearer":(sc.name+" ("+sc.in+")");
    const[l,i]=input(label,"password");box.append(l);creds[name]={scheme:sc,input:i};
  }
  const ops=document.getElementById("ops");ops.textContent="";
  const byTag={};
  for(const[path,item]of Object.entries(doc.paths||{}))for(const[method,op]of Object.entries(item)){
    if(typeof op!=="object"||!op.responses)continue;const tag=(op.tags||["other"])[0];(byTag[tag]=byTag[tag]||[]).push([path,method,op]);
  }
  for(const[tag,list]of Object.entries(byTag)){
    ops.append(el("h2",tag));
    for(const[path,method,op]of list){
      const d=el("details"),sm=el("summary");
      const m=el("span",method.toUpperCase());m.className="m";sm.append(m,el("code",path)," — "+(op.summary||""));d.append(sm);
      if(op.description)d.append(el("pre",op.description));
      const params=[];
      for(const p0 of op.parameters||[]){const p=resolve(doc,p0);
        const[l,i]=input(p.in+" "+p.name+(p.required?" (required)":"")+(p.description?" — "+p.description:""));d.append(l);params.push([p,i])}
      let body=null;
      if(op.requestBody){const c=op.requestBody.content["application/json"],s=c&&c.schema;
        d.append(el("h4","Request body"+(op.requestBody.required?"":" (optional)")),el("pre",JSON.stringify(resolve(doc,s),null,2)));
        body=el("textarea");body.value=JSON.stringify(example(doc,s,0),null,2);d.append(body)}
      d.append(el("h4","Responses"));
      for(const[st,r0]of Object.entries(op.responses)){const r=resolve(doc,r0),c=r.content&&r.content["application/json"];
        d.append(el("p",st+": "+(r.description||"")));if(c&&c.schema)d.append(el("pre",JSON.stringify(resolve(doc,c.schema),null,2)))}
      const out=el("pre"),btn=el("button","Send");
      btn.onclick=()=>{
        const h={},q=new URLSearchParams();let url=path;
        if(body)h["Content-Type"]="application/json";
        for(const[p,i]of params){if(!i.value)continue;
          if(p.in==="path")url=url.replace("{"+p.name+"}",encodeURIComponent(i.value));
          else if(p.in==="query")q.set(p.name,i.value);else if(p.in==="header")h[p.name]=i.value}
        for(const c of Object.values(creds)){const v=c.input.value;if(!v)continue;
          if(c.scheme.type==="http")h["Authorization"]="Bearer "+v;
          else if(c.scheme.in==="header")h[c.scheme.name]=v;else if(c.scheme.in==="query")q.set(c.scheme.name,v)}
        const qs=q.toString();
        fetch(url+(qs?"?"+qs:""),{method:method.toUpperCase(),headers:h,body:body&&body.value.trim()?body.value:undefined})
          .then(async r=>{const t=await r.text();let s=t;try{s=JSON.stringify(JSON.parse(t),null,2)}catch(e){}
            out.textContent=r.status+" "+r.statusText+"\n"+s})
          .catch(e=>{out.textContent=String(e)})};
      d.append(btn,out);ops.append(d);
    }
  }
});
</script></body></html>`
