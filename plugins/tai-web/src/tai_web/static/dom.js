// Building elements. Text a model or a session wrote only ever becomes textContent (never
// innerHTML): a reply holding markup shows as text and runs nothing.

export function el(tag, props = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(props)) {
    if (key === "text") node.textContent = value;
    else if (key === "class") node.className = value;
    else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else if (key === "dataset") Object.assign(node.dataset, value);
    else if (value !== undefined && value !== null && value !== false) node.setAttribute(key, value);
  }
  for (const child of children) {
    if (child !== null && child !== undefined) node.append(child);
  }
  return node;
}

export function replace(parent, ...children) {
  parent.replaceChildren(...children.filter((c) => c !== null && c !== undefined));
}
