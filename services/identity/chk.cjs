const {canonicalPhoneNumber}=require('./dist/domain/phone/canonical-number.js');
const fs=require('fs');const cp=require('child_process');
const files=cp.execSync("git ls-files services/*/test test-e2e test-compat test-browser packages/stack bench packages/test-support services/*/src packages/*/src",{cwd:'/work/wt-phone'}).toString().split('\n').filter(f=>/\.(ts|js|mjs|cjs|json|md)$/.test(f));
const bad={};
for(const f of files){const t=fs.readFileSync('/work/wt-phone/'+f,'utf8');for(const m of t.matchAll(/(?<![\w.])\+\d{6,16}\b/g)){const r=canonicalPhoneNumber(m[0]);if(!r.ok){(bad[f]??=new Set()).add(m[0]);}}}
for(const [f,s] of Object.entries(bad)) console.log(f, [...s].join(' '));
